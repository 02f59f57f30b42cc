import { describe } from "vitest";
import { check } from "../testing/check-classification";

describe("classifyCommand: system_modify", () => {
  check([["python3 -m pip install requests", "system_modify"]]);
});

describe("classifyCommand: recognised execute (tests, builds, read-ish)", () => {
  check([
    ["python -m pytest tests", "execute", true],
    ["python3 --version", "execute", true],
    ["node --version", "execute", true],
  ]);
});

describe("classifyCommand: other execute", () => {
  check([
    ["python3 train.py", "execute", false],
    ["node server.js", "execute", false],
    ["bash script.sh", "execute", false],
  ]);
});
