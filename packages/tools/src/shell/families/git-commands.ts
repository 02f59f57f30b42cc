import type { CommandFamily, CommandHandler } from "../command-family";
import { hasFlag, operandIndex, operands, optionValues, set, shown } from "../command-args";

const GIT_GLOBAL_WITH_VALUE = set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env");
// prettier-ignore
const GIT_READ = set(
  "status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "grep", "describe", "shortlog",
  "merge-base", "cat-file", "ls-tree", "rev-list", "version", "help", "whatchanged", "count-objects",
  "name-rev", "show-ref", "for-each-ref", "check-ignore", "var", "annotate", "diff-tree", "diff-files",
  "diff-index", "range-diff",
);
const GIT_LOCAL_WRITE = set(
  "add",
  "commit",
  "init",
  "switch",
  "mv",
  "apply",
  "merge",
  "cherry-pick",
  "revert",
  "am",
  "notes",
);
const GIT_NETWORK = set("clone", "fetch", "pull", "push", "ls-remote", "archive", "request-pull", "send-email");

const git: CommandHandler = (c) => {
  const i = operandIndex(c.args, GIT_GLOBAL_WITH_VALUE);
  // -c can define aliases and hooks (`alias.x=!sh`, core.sshCommand): not a plain git call any more.
  const configured = optionValues(c.args.slice(0, i), ["-c", "--config-env"]).length > 0;
  const sub = c.args[i]?.value;
  const rest = c.args.slice(i + 1);
  if (c.args.slice(0, i).some((a) => a.value === "--version" || a.value === "--help") && sub === undefined) {
    return c.add("execute-recognised");
  }
  // A subcommand or an argument of push/reset/clean that expands at run time could be the one class
  // that stays denied (`git $(echo reset) --hard`, `git push $FLAGS`): code we cannot see.
  if (sub === undefined) {
    return c.args[i] === undefined
      ? c.add("execute-recognised")
      : c.unseen(`git subcommand ${shown(c.args[i])} is not static: it could be a destructive one`);
  }
  if (configured) c.add("execute-other", "git -c overrides configuration (aliases, hooks, ssh command)");
  const dynamic = rest.find((a) => a.value === undefined);
  const unseenArgument = (): void => {
    if (dynamic) c.unseen(`git ${sub} argument ${dynamic.text} is not static: it could make the ${sub} destructive`);
  };

  switch (sub) {
    case "push": {
      c.add("network", "git push talks to a remote");
      const force = hasFlag(rest, ["--force", "--force-with-lease", "--force-if-includes", "--mirror"], "f");
      const plusRefspec = operands(rest, set("--repo", "-o", "--push-option", "--receive-pack", "--exec")).some(
        (a) => a.value?.startsWith("+") === true,
      );
      if (force || plusRefspec) return c.add("git_destructive", "git push --force rewrites remote history");
      return unseenArgument();
    }
    case "reset":
      if (hasFlag(rest, ["--hard"])) return c.add("git_destructive", "git reset --hard discards uncommitted work");
      c.add("execute-other", "git reset moves the branch head");
      return unseenArgument();
    case "clean":
      if (hasFlag(rest, ["--force"], "f")) return c.add("git_destructive", "git clean -f deletes untracked files");
      c.add("execute-recognised");
      return unseenArgument();
    case "checkout": {
      const discards = hasFlag(rest, ["--force"], "f") || rest.some((a) => a.value === "--" || a.value === ".");
      return discards ? c.add("execute-other", "git checkout can discard changes") : c.add("execute-recognised");
    }
    case "branch":
      return hasFlag(rest, ["--force"], "Df") && !hasFlag(rest, ["--list"])
        ? c.add("execute-other", "git branch -D deletes unmerged work")
        : c.add("execute-recognised");
    case "stash": {
      const action = rest[0]?.value;
      return action === "drop" || action === "clear"
        ? c.add("execute-other", `git stash ${action} discards stashed work`)
        : c.add("execute-recognised");
    }
    case "tag":
      return hasFlag(rest, ["--delete"], "d")
        ? c.add("execute-other", "git tag -d deletes a tag")
        : c.add("execute-recognised");
    case "remote": {
      const action = rest[0]?.value;
      if (action === "update") return c.add("network", "git remote update fetches");
      return action === undefined || action === "-v" || action === "show" || action === "get-url"
        ? c.add("execute-recognised")
        : c.add("execute-other", `git remote ${action ?? ""} changes remotes`);
    }
    case "config":
      return hasFlag(rest, ["--get", "--list", "--get-all", "--get-regexp", "--show-origin"], "l") ||
        rest[0]?.value === "get" ||
        rest[0]?.value === "list"
        ? c.add("execute-recognised")
        : c.add("execute-other", "git config changes configuration");
    case "reflog": {
      const action = rest[0]?.value;
      return action === "expire" || action === "delete"
        ? c.add("execute-other", `git reflog ${action} drops history`)
        : c.add("execute-recognised");
    }
    case "submodule":
      return c.add("network", "git submodule fetches from remotes");
    case "worktree":
      return rest[0]?.value === "list"
        ? c.add("execute-recognised")
        : c.add("execute-other", "git worktree changes worktrees");
  }
  if (GIT_NETWORK.has(sub)) return c.add("network", `git ${sub} talks to a remote`);
  if (GIT_READ.has(sub) || GIT_LOCAL_WRITE.has(sub)) return c.add("execute-recognised");
  c.add("execute-other", `git ${sub} is not a recognised git command`);
};

/** git, subcommand by subcommand: history rewrites and discarded work are git_destructive. */
export const GIT_COMMANDS: CommandFamily = {
  family: "git",
  rules: [{ names: ["git"], handler: git }],
};
