import { describe } from "vitest";
import { check } from "../testing/check-classification";

describe("classifyCommand: system_modify", () => {
  check([["sed -i s/a/b/ /etc/hosts", "system_modify"]]);
});

describe("classifyCommand: recognised execute (tests, builds, read-ish)", () => {
  check([
    ["ls -la", "execute", true],
    ["cat package.json", "execute", true],
    ["pwd", "execute", true],
    ["echo hello", "execute", true],
    ["grep -rn TODO src", "execute", true],
    ["rg -n foo", "execute", true],
    ["sed -n '1,5p' a.txt", "execute", true],
  ]);
});

describe("classifyCommand: other execute", () => {
  check([["sed -n '1e id' a.txt", "execute", false]]);
});

describe("classifyCommand: always ask", () => {
  check([["echo 'unterminated", "unknown", false, true]]);
});
