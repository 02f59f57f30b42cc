import { describe } from "vitest";
import { check } from "../testing/check-classification";

describe("classifyCommand: git_destructive", () => {
  check([["sudo git reset --hard", "git_destructive"]]);
});

describe("classifyCommand: system_modify", () => {
  check([
    ["sudo ls", "system_modify"],
    ["sudo -u root -E ls", "system_modify"],
    ["doas ls", "system_modify"],
    ["su -c 'ls'", "system_modify"],
  ]);
});

describe("classifyCommand: recognised execute (tests, builds, read-ish)", () => {
  check([
    ["time make", "execute", true],
    ["env NODE_ENV=test npm test", "execute", true],
    ["nohup npm run build", "execute", true],
  ]);
});
