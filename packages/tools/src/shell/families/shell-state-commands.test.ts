import { describe } from "vitest";
import { check } from "../testing/check-classification";

describe("classifyCommand: system_modify", () => {
  check([
    ["cd /etc && rm passwd", "system_modify"],
    ["cd .. && touch x", "system_modify"],
  ]);
});

describe("classifyCommand: recognised execute (tests, builds, read-ish)", () => {
  check([
    ["cd src && ls", "execute", true],
    ["(cd src && npm test)", "execute", true],
  ]);
});

describe("classifyCommand: other execute", () => {
  check([["export PATH=/tmp/evil; ls", "execute", false]]);
});
