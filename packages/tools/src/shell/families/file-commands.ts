import type { Arg } from "../command-context";
import type { CommandFamily, CommandHandler } from "../command-family";
import { hasFlag, operands, optionValues, set, shown } from "../command-args";

// ---- programs that write files: every target is checked against the workspace ----

/** Which operands a file-changing command writes. */
function mutator(opts: {
  recognised: boolean;
  /** Operands that are not paths (chmod's mode, chown's owner). */
  skip?: number;
  /** Only the last operand (or -t DIR) is written: cp, ln, install. */
  destinationOnly?: boolean;
  withValue?: ReadonlySet<string>;
}): CommandHandler {
  return (c) => {
    c.add(
      opts.recognised ? "execute-recognised" : "execute-other",
      opts.recognised ? undefined : `${c.name} changes files`,
    );
    const targetDirs = optionValues(c.args, ["-t", "--target-directory"]);
    let ops = operands(c.args, opts.withValue);
    if (opts.skip && !hasFlag(c.args, ["--reference"])) ops = ops.slice(opts.skip);
    if (opts.destinationOnly) {
      if (targetDirs.length > 0) {
        for (const dir of targetDirs) c.writes(dir, c.name);
        return;
      }
      ops = ops.length > 1 ? ops.slice(-1) : ops;
    }
    for (const dir of targetDirs) c.writes(dir, c.name);
    for (const op of ops) c.writes(op.value, c.name);
  };
}

const dd: CommandHandler = (c) => {
  c.add("execute-other", "dd writes raw data");
  for (const a of c.args) {
    if (a.value === undefined) c.writes(undefined, "dd");
    else if (a.value.startsWith("of=")) c.writes(a.value.slice(3), "dd of=");
  }
};

const LN_WITH_VALUE = set("-t", "--target-directory", "-S", "--suffix");

/** A link to a path outside the workspace lets later writes through it leave the workspace. */
const ln: CommandHandler = (c) => {
  mutator({ recognised: true, destinationOnly: true, withValue: LN_WITH_VALUE })(c);
  const ops = operands(c.args, LN_WITH_VALUE);
  const sources = optionValues(c.args, ["-t", "--target-directory"]).length > 0 ? ops : ops.slice(0, -1);
  for (const source of sources) {
    if (source.value === undefined || c.isInside(source.value) !== true) {
      c.add("unknown", `ln links to ${shown(source)}, outside the workspace: writes through the link would leave it`);
    }
  }
};

const find: CommandHandler = (c) => {
  const starts: Arg[] = [];
  let i = 0;
  for (; i < c.args.length; i++) {
    const v = c.args[i]!.value;
    if (v !== undefined && (v.startsWith("-") || v === "(" || v === "!")) break;
    starts.push(c.args[i]!);
  }
  if (starts.length === 0) starts.push({ value: ".", text: "." });
  let plain = true;
  for (; i < c.args.length; i++) {
    const v = c.args[i]!.value;
    if (v === "-exec" || v === "-execdir" || v === "-ok" || v === "-okdir") {
      const argv: Arg[] = [];
      for (i++; i < c.args.length; i++) {
        const w = c.args[i]!;
        if (w.value === ";" || w.value === "+") break;
        // `{}` stands for each file found under the start points.
        if (w.value === "{}") argv.push(...starts);
        else argv.push(w);
      }
      if (argv.length > 0) c.run(argv);
      plain = false;
    } else if (v === "-delete") {
      c.add("execute-other", "find -delete removes files");
      for (const s of starts) c.writes(s.value, "find -delete");
      plain = false;
    } else if (v === "-fprint" || v === "-fprint0" || v === "-fprintf" || v === "-fls") {
      c.writes(c.args[i + 1]?.value, `find ${v}`);
    }
  }
  if (plain) c.add("execute-recognised");
};

/** Programs that create, change or remove files: each target is checked against the workspace. */
export const FILE_COMMANDS: CommandFamily = {
  family: "file operations",
  rules: [
    { names: ["mkdir", "touch", "tee", "mv"], handler: mutator({ recognised: true, skip: 0 }) },
    { names: ["chmod"], handler: mutator({ recognised: true, skip: 1 }) },
    { names: ["cp"], handler: mutator({ recognised: true, destinationOnly: true, withValue: LN_WITH_VALUE }) },
    { names: ["rm", "rmdir", "shred", "unlink"], handler: mutator({ recognised: false }) },
    {
      names: ["truncate"],
      handler: mutator({ recognised: false, withValue: set("-s", "--size", "-r", "--reference") }),
    },
    { names: ["chown", "chgrp"], handler: mutator({ recognised: false, skip: 1 }) },
    {
      names: ["install"],
      handler: mutator({
        recognised: false,
        destinationOnly: true,
        withValue: set("-m", "--mode", "-o", "--owner", "-g", "--group", "-t", "--target-directory"),
      }),
    },
    { names: ["ln"], handler: ln },
    { names: ["dd"], handler: dd },
    { names: ["find"], handler: find },
  ],
};
