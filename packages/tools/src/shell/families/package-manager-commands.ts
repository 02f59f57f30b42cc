import type { Arg, CommandContext } from "../command-context";
import type { CommandFamily, CommandHandler } from "../command-family";
import { hasFlag, operandIndex, optionValues, set, shown } from "../command-args";

/** Script names treated as tests/builds (`npm run build`, `pnpm test:unit`…). */
const SAFE_SCRIPT = /^(build|test|tests|lint|typecheck|type-check|check|format|fmt|compile|coverage)(:[\w.-]+)?$/;
// prettier-ignore
const NPM_INSTALL = set(
  "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "add", "ci", "clean-install",
  "update", "up", "upgrade", "udpate", "uninstall", "un", "unlink", "remove", "rm", "r", "link", "ln", "dedupe", "ddp",
);
const NPM_READ = set(
  "ls",
  "list",
  "ll",
  "la",
  "why",
  "explain",
  "prefix",
  "root",
  "bin",
  "help",
  "query",
  "completion",
  "help-search",
);
// prettier-ignore
const NPM_NETWORK = set(
  "outdated", "view", "v", "info", "show", "search", "s", "se", "find", "audit", "ping", "whoami", "publish",
  "unpublish", "deprecate", "dist-tag", "owner", "access", "token", "adduser", "login", "logout", "repo", "docs",
  "bugs", "fund", "doctor", "exec", "x", "dlx", "create", "init",
);
const NPM_WITH_VALUE = set("--prefix", "-C", "--dir", "-w", "--workspace", "--filter", "-F", "--cwd", "--loglevel");

function runScript(c: CommandContext, script: Arg | undefined): void {
  if (script === undefined) return c.add("execute-recognised");
  if (script.value !== undefined && SAFE_SCRIPT.test(script.value)) return c.add("execute-recognised");
  c.add("execute-other", `${c.name} runs the package script ${shown(script)}`);
}

const packageManager: CommandHandler = (c) => {
  const pm = c.name;
  const i = operandIndex(c.args, NPM_WITH_VALUE);
  const sub = c.args[i];
  const rest = c.args.slice(i + 1);
  const global = hasFlag(c.args, ["--global", "--location"], "g") && !hasFlag(c.args, ["--location=project"]);
  if (sub === undefined) {
    // Bare `yarn`, `pnpm`, `bun` install dependencies; bare npm prints help.
    if (pm === "npm" || c.args.length > 0) return c.add("execute-recognised");
    return c.add("network", `${pm} installs dependencies`);
  }
  const s = sub.value;
  if (s === undefined) return c.add("execute-other", `${pm} subcommand is not static`);
  if (pm === "yarn" && s === "global") return c.add("system_modify", "yarn global installs outside the workspace");
  if (NPM_INSTALL.has(s) || (pm === "bun" && s === "pm")) {
    if (global || (pm === "npm" && (s === "link" || s === "ln") && rest.length === 0)) {
      return c.add("system_modify", `${pm} ${s} -g installs packages outside the workspace`);
    }
    return c.add("network", `${pm} ${s} downloads packages`);
  }
  if (s === "test" || s === "t" || s === "tst") return c.add("execute-recognised");
  if (s === "run" || s === "run-script" || s === "rum" || s === "urn") {
    const script = rest[operandIndex(rest)];
    if (pm === "bun" && script?.value !== undefined && /\.[cm]?[jt]sx?$/.test(script.value)) {
      return c.add("execute-other", `bun runs ${script.value}`);
    }
    return runScript(c, script);
  }
  if (NPM_READ.has(s) || s === "--version" || s === "-v" || (s === "version" && rest.length === 0))
    return c.add("execute-recognised");
  if (s === "config" || s === "c") {
    const action = rest[0]?.value;
    return action === "get" || action === "list" || action === "ls"
      ? c.add("execute-recognised")
      : c.add("execute-other", `${pm} config changes configuration`);
  }
  if (NPM_NETWORK.has(s)) return c.add("network", `${pm} ${s} talks to the registry`);
  if (pm !== "npm") return runScript(c, sub); // `yarn build`, `pnpm lint` run scripts directly
  c.add("execute-other", `npm ${s} is not a recognised npm command`);
};

const NPX_RECOGNISED = set("tsc", "vitest", "jest", "mocha", "eslint", "prettier", "playwright", "turbo", "tsc-alias");

const npx: CommandHandler = (c) => {
  const i = operandIndex(c.args, set("-p", "--package", "-c", "--call"));
  const tool = c.args[i]?.value;
  if (hasFlag(c.args, ["--call"], "c")) return c.add("execute-other", "npx -c runs a command string");
  if (tool !== undefined && NPX_RECOGNISED.has(tool)) {
    if (tool === "turbo" || tool === "playwright") return runScript(c, c.args[i + 1]);
    return c.add("execute-recognised");
  }
  c.add("network", `${c.name} may download and run ${tool ?? "a package"}`);
};

// ---- Python ----

export const pip: CommandHandler = (c) => {
  const i = operandIndex(c.args, set("--python", "--log", "--proxy", "--cache-dir"));
  const sub = c.args[i]?.value;
  const rest = c.args.slice(i + 1);
  if (sub === "install" || sub === "uninstall") {
    const targets = optionValues(rest, ["-t", "--target", "--prefix", "--root"]);
    const local = c.local || (targets.length > 0 && targets.every((t) => t !== undefined && c.isInside(t) === true));
    if (local || hasFlag(rest, ["--dry-run"])) return c.add("network", `${c.name} ${sub} downloads packages`);
    return c.add("system_modify", `${c.name} ${sub} changes packages outside the workspace`);
  }
  if (sub === "download" || sub === "search" || sub === "index")
    return c.add("network", `${c.name} ${sub} talks to the index`);
  if (
    sub === undefined ||
    ["list", "show", "freeze", "check", "help", "--version", "-V", "debug", "inspect"].includes(sub)
  ) {
    return c.add("execute-recognised");
  }
  c.add("execute-other", `${c.name} ${sub} is not a recognised pip command`);
};

/** Package managers: installs talk to a registry; global installs change the system. */
export const PACKAGE_MANAGER_COMMANDS: CommandFamily = {
  family: "package managers",
  rules: [
    { names: ["npm", "pnpm", "yarn", "bun"], handler: packageManager },
    { names: ["npx"], handler: npx },
    { names: ["pip", "pip3"], handler: pip },
  ],
};
