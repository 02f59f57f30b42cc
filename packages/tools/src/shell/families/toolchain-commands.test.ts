import { describe } from "vitest";
import { check } from "../testing/check-classification";

describe("classifyCommand: system_modify", () => {
  check([
    ["cargo install ripgrep", "system_modify"],
    ["go install example.com/x@latest", "system_modify"],
    ["make install", "system_modify"],
  ]);
});

describe("classifyCommand: network", () => {
  check([["go mod download", "network"]]);
});

describe("classifyCommand: recognised execute (tests, builds, read-ish)", () => {
  check([
    ["pytest -q", "execute", true],
    ["go test ./...", "execute", true],
    ["cargo test", "execute", true],
    ["cargo build --release", "execute", true],
    ["make", "execute", true],
    ["make test", "execute", true],
    ["tsc --noEmit", "execute", true],
  ]);
});
