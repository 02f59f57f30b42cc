import { describe, expect, it } from "vitest";
import { check, classify } from "../testing/check-classification";

describe("classifyCommand: git_destructive", () => {
  it("explains why", () => {
    expect(classify("git push --force").reasons.join("\n")).toMatch(/rewrites remote history/);
  });
  check([
    ["git push --force", "git_destructive"],
    ["git push -f origin main", "git_destructive"],
    ["git push -uf origin main", "git_destructive"],
    ["git push --force-with-lease", "git_destructive"],
    ["git push --force-with-lease=main:abc origin main", "git_destructive"],
    ["git push origin +main", "git_destructive"],
    ["git -C repo push --force", "git_destructive"],
    ["git reset --hard", "git_destructive"],
    ["git reset --hard HEAD~3", "git_destructive"],
    ["git clean -f", "git_destructive"],
    ["git clean -fdx", "git_destructive"],
    ["git clean -xdf", "git_destructive"],
    ["git clean --force -d", "git_destructive"],
  ]);
});

describe("classifyCommand: network", () => {
  check([
    ["git clone https://github.com/a/b", "network"],
    ["git fetch origin", "network"],
    ["git pull", "network"],
    ["git push origin main", "network"],
  ]);
});

describe("classifyCommand: recognised execute (tests, builds, read-ish)", () => {
  check([
    ["git status", "execute", true],
    ["git diff HEAD~1", "execute", true],
    ["git log --oneline -5", "execute", true],
    ["git show HEAD", "execute", true],
    ["git branch -a", "execute", true],
  ]);
});

describe("classifyCommand: other execute", () => {
  check([
    ["git reset HEAD~1", "execute", false],
    ["git checkout -- .", "execute", false],
    ["git branch -D feature", "execute", false],
  ]);
});
