import type { CommandFamily, CommandHandler } from "../command-family";
import { recognised } from "../command-family";
import { hasFlag, operandIndex, operands, set } from "../command-args";

// prettier-ignore
const BUILD_COMMANDS = [
  "tsc", "vitest", "jest", "mocha", "eslint", "prettier", "pytest", "py.test", "mypy", "ruff", "black",
  "flake8", "pylint", "isort", "cmake", "ninja", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc",
  "javac", "gofmt", "shellcheck", "tsx-check",
] as const;

const go: CommandHandler = (c) => {
  const sub = c.args[0]?.value;
  const rest = c.args.slice(1);
  if (sub === undefined) return c.add(c.args.length ? "execute-other" : "execute-recognised");
  if (["test", "build", "vet", "fmt", "version", "env", "list", "doc", "help"].includes(sub)) {
    return sub === "env" && hasFlag(rest, [], "w")
      ? c.add("execute-other", "go env -w changes settings")
      : c.add("execute-recognised");
  }
  if (sub === "get") return c.add("network", "go get downloads modules");
  if (sub === "mod") {
    const action = rest[0]?.value;
    return action === "download" || action === "tidy" || action === "vendor" || action === "get"
      ? c.add("network", `go mod ${action} downloads modules`)
      : c.add("execute-recognised");
  }
  if (sub === "install") return c.add("system_modify", "go install writes binaries outside the workspace");
  if (sub === "clean" && hasFlag(rest, ["-modcache", "-cache"]))
    return c.add("system_modify", "go clean removes caches outside the workspace");
  c.add("execute-other", `go ${sub} runs code`);
};

const cargo: CommandHandler = (c) => {
  const i = operandIndex(c.args, set("-C", "--config", "-Z"));
  const sub = c.args[i]?.value;
  if (sub === undefined) return c.add("execute-recognised");
  if (
    [
      "build",
      "b",
      "test",
      "t",
      "check",
      "c",
      "clippy",
      "fmt",
      "doc",
      "d",
      "bench",
      "tree",
      "metadata",
      "version",
      "help",
      "new",
      "init",
      "--version",
      "-V",
    ].includes(sub)
  ) {
    return c.add("execute-recognised");
  }
  if (sub === "install" || sub === "uninstall")
    return c.add("system_modify", `cargo ${sub} changes binaries outside the workspace`);
  if (
    [
      "fetch",
      "update",
      "add",
      "remove",
      "search",
      "publish",
      "login",
      "owner",
      "yank",
      "generate-lockfile",
      "vendor",
    ].includes(sub)
  ) {
    return c.add("network", `cargo ${sub} talks to the registry`);
  }
  c.add("execute-other", `cargo ${sub} runs code`);
};

const make: CommandHandler = (c) => {
  const targets = operands(c.args, set("-C", "-f", "--file", "--directory", "-I", "-j", "-l", "-o", "-W"));
  if (targets.some((t) => t.value === "install" || t.value === "uninstall")) {
    return c.add("system_modify", "make install writes outside the workspace");
  }
  c.add("execute-recognised");
};

const deno: CommandHandler = (c) => {
  const sub = c.args[0]?.value;
  if (sub === "test" || sub === "check" || sub === "lint" || sub === "fmt" || sub === "--version")
    return c.add("execute-recognised");
  c.add("execute-other", `deno ${sub ?? ""} runs code`);
};

const dotnet: CommandHandler = (c) => {
  const sub = c.args[0]?.value;
  if (sub === "test" || sub === "build" || sub === "--version" || sub === "--info") return c.add("execute-recognised");
  if (sub === "restore" || sub === "add") return c.add("network", `dotnet ${sub} downloads packages`);
  if (sub === "tool" && c.args.some((a) => a.value === "-g" || a.value === "--global")) {
    return c.add("system_modify", "dotnet tool -g installs outside the workspace");
  }
  c.add("execute-other", `dotnet ${sub ?? ""} runs code`);
};

const mvn: CommandHandler = (c) => {
  const goals = operands(c.args, set("-f", "-P", "-D", "-pl", "-s"));
  const safe = ["test", "compile", "package", "verify", "validate", "clean", "test-compile"];
  if (goals.length > 0 && goals.every((g) => g.value !== undefined && safe.includes(g.value))) {
    return c.add("execute-recognised");
  }
  c.add("execute-other", `${c.name} runs build goals`);
};

/** Compilers, test runners and language toolchains: tests and builds are recognised. */
export const TOOLCHAIN_COMMANDS: CommandFamily = {
  family: "builds and toolchains",
  rules: [
    { names: BUILD_COMMANDS, handler: recognised },
    { names: ["go"], handler: go },
    { names: ["cargo"], handler: cargo },
    { names: ["make", "gmake"], handler: make },
    { names: ["deno"], handler: deno },
    { names: ["dotnet"], handler: dotnet },
    { names: ["mvn", "gradle", "./gradlew", "./mvnw"], handler: mvn },
  ],
};
