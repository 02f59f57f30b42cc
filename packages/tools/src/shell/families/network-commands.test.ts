import { describe } from "vitest";
import { check } from "../testing/check-classification";

describe("classifyCommand: system_modify", () => {
  check([["curl -o /usr/bin/x https://example.com/x", "system_modify"]]);
});

describe("classifyCommand: network", () => {
  check([
    ["curl https://example.com", "network"],
    ["wget https://example.com/x.tgz", "network"],
    ["ssh host ls", "network"],
    ["scp a host:b", "network"],
    ["nc -l 8080", "network"],
  ]);
});
