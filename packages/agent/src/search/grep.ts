import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import {
  GLOB_IGNORED_DIRS,
  GREP_MAX_FILE_BYTES,
  GREP_MAX_LINE_CHARS,
  GrepArgsSchema,
  type GrepDetails,
  type GrepMatch,
} from "@berth/protocol";
import { asAgentHelper } from "../processes/launch";
import { defineTool, okResult } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";

/** A search that outlives this is cut short and reported truncated rather than hanging the call. */
const GREP_TIMEOUT_MS = 60_000;

interface RgText {
  text?: string;
  bytes?: string;
}

function rgText(value: RgText | undefined): string {
  if (!value) return "";
  return value.text ?? Buffer.from(value.bytes ?? "", "base64").toString("utf8");
}

export function buildRgArgs(args: {
  pattern: string;
  include?: string | undefined;
  caseInsensitive: boolean;
  literal: boolean;
  context: number;
}): string[] {
  const rgArgs = [
    "--json",
    "--no-config",
    "--sort=path",
    // Same folder rules as glob; hidden files are searched, .gitignore is not consulted.
    "--hidden",
    "--no-ignore",
    "--glob=!.git",
    ...GLOB_IGNORED_DIRS.map((dir) => `--glob=!${dir}`),
    `--max-filesize=${GREP_MAX_FILE_BYTES}`,
  ];
  if (args.caseInsensitive) rgArgs.push("--ignore-case");
  if (args.literal) rgArgs.push("--fixed-strings");
  if (args.context > 0) rgArgs.push(`--context=${args.context}`);
  if (args.include) rgArgs.push(`--glob=${args.include}`);
  rgArgs.push("--regexp", args.pattern);
  return rgArgs;
}

export const grepTool = defineTool({
  name: "grep",
  schema: GrepArgsSchema,
  async run(args, { workspace, signal, config }) {
    const base = await workspace.resolveForRead(args.path);
    const info = await stat(base.real).catch(() => undefined);
    if (!info) fail("not_found", `Path not found: ${args.path}`);
    // The root the path is in: the workspace, or a read-only root (/skills), whose paths are shown absolute.
    const realRoot = base.root;
    const relBase = path.relative(realRoot, base.real) || ".";
    const shownPrefix = base.readOnlyRoot === undefined ? "" : `${base.readOnlyRoot}/`;
    const rgArgs = buildRgArgs(args);
    // Searching from the root makes every reported path root-relative.
    if (relBase !== ".") rgArgs.push("--", relBase);

    const matches: GrepMatch[] = [];
    let filesMatched = 0;
    let totalMatches = 0;
    let truncated = false;
    let summary: Record<string, unknown> | undefined;
    let storedMatches = 0;
    let fileEntries: GrepMatch[] = [];
    let fileMatchCount = 0;
    let lastKeptLine = Number.NEGATIVE_INFINITY;

    const commitFile = (binary: boolean) => {
      // rg may print matches before it notices a NUL byte; such a file is binary and skipped whole.
      if (!binary && fileMatchCount > 0) {
        filesMatched++;
        totalMatches += fileMatchCount;
        let lastStored = Number.NEGATIVE_INFINITY;
        for (const entry of fileEntries) {
          if (!entry.isContext) {
            if (storedMatches < args.maxResults) {
              matches.push(entry);
              storedMatches++;
              lastStored = entry.line;
            }
          } else if (storedMatches < args.maxResults || entry.line <= lastStored + args.context) {
            matches.push(entry);
          }
        }
      }
      fileEntries = [];
      fileMatchCount = 0;
      lastKeptLine = Number.NEGATIVE_INFINITY;
    };

    const rg = asAgentHelper(config, "rg", rgArgs);
    const child = spawn(rg.file, rg.args, { cwd: realRoot, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    const timer = setTimeout(() => {
      truncated = true;
      child.kill("SIGKILL");
    }, GREP_TIMEOUT_MS);
    const onAbort = () => child.kill("SIGKILL");
    signal.addEventListener("abort", onAbort);

    const exit = new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.on("error", (error) => resolve({ code: null, error }));
      child.on("close", (code) => resolve({ code }));
    });
    for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
      let message: { type: string; data: Record<string, unknown> };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        continue;
      }
      const data = message.data;
      if (message.type === "match" || message.type === "context") {
        const content = rgText(data.lines as RgText).replace(/\r?\n$/, "");
        const entry: GrepMatch = {
          file: shownPrefix + rgText(data.path as RgText).replace(/^\.\//, ""),
          line: Number(data.line_number),
          content: content.slice(0, GREP_MAX_LINE_CHARS),
        };
        if (content.length > GREP_MAX_LINE_CHARS) entry.lineTruncated = true;
        // Past maxResults only counting goes on, so a file with a million hits costs no memory.
        const room = storedMatches + fileMatchCount < args.maxResults;
        if (message.type === "context") {
          entry.isContext = true;
          if (room || entry.line <= lastKeptLine + args.context) fileEntries.push(entry);
        } else {
          fileMatchCount++;
          if (room) {
            fileEntries.push(entry);
            lastKeptLine = entry.line;
          }
        }
      } else if (message.type === "end") {
        commitFile(data.binary_offset !== null && data.binary_offset !== undefined);
      } else if (message.type === "summary") {
        summary = data.stats as Record<string, unknown>;
      }
    }
    const { code, error } = await exit;
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    if (error) fail("spawn_failed", `grep: could not run ripgrep (rg): ${error.message}`);
    if (code === 2 && /regex parse error|error parsing|unclosed|unopened|repetition/i.test(stderr)) {
      fail("invalid_regex", `Invalid regex in pattern: ${args.pattern}\n${stderr.trim()}`);
    }
    // "No files were searched" only means the folder held nothing searchable: zero matches.
    if (code === 2 && filesMatched === 0 && !/No such file|Permission denied|No files were searched/i.test(stderr)) {
      fail("grep_failed", `grep failed: ${stderr.trim() || "ripgrep exited with status 2"}`);
    }

    const details: GrepDetails = {
      matches,
      filesMatched,
      totalMatches,
      truncated: truncated || totalMatches > storedMatches,
    };
    return okResult(details, {
      engine: "ripgrep",
      args: rgArgs,
      filesSearched: summary?.searches ?? null,
      bytesSearched: summary?.bytes_searched ?? null,
      ...(stderr ? { warnings: stderr.slice(0, 4000) } : {}),
    });
  },
});
