import { Worker } from "node:worker_threads";
import { globToRegExp } from "../search/glob-to-regexp";
import { ToolFailureError, fail } from "../tools/tool-failure-error";

export interface PathMatcher {
  kind: "glob" | "regex" | "substring";
  test(rel: string): boolean;
  /** The paths it matches, in order; a /regex/ runs off the agent's thread under PATH_REGEX_TIME_LIMIT_MS. */
  filter(paths: readonly string[]): Promise<string[]>;
}

/** A /regex/ query longer than this is refused before it is compiled. */
export const PATH_REGEX_MAX_CHARS = 1000;
/**
 * How long a /regex/ may take over all the index's paths. A backtracking pattern such as /(a+)+$/ can take
 * forever on one path; run on the agent's own thread it would stall every call of the session, so it runs in a
 * worker that is terminated at the limit.
 */
export const PATH_REGEX_TIME_LIMIT_MS = 2000;

const REGEX_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const re = new RegExp(workerData.source, workerData.flags);
parentPort.postMessage(workerData.paths.filter((p) => re.test(p)));
`;

const REGEX_QUERY = /^\/(.+)\/([a-z]*)$/s;
const GLOB_CHARS = /[*?[\]{}]/;
/** RegExp flags a path test may carry; `g` and `y` make `test` stateful (lastIndex) and are stripped. */
const ALLOWED_FLAGS = new Set(["d", "i", "m", "s", "u", "v"]);

export function isRegexQuery(query: string): boolean {
  return REGEX_QUERY.test(query);
}

export function isGlobQuery(query: string): boolean {
  return GLOB_CHARS.test(query) && !isRegexQuery(query);
}

/**
 * `path` mode's query: `/regex/flags` (a JavaScript regex over the relative path), a glob (one without `/`
 * matches the file name at any depth, like `find -name`), or else a substring, case-insensitive unless the
 * query has a capital letter.
 */
export function pathMatcher(query: string): PathMatcher {
  const regex = REGEX_QUERY.exec(query);
  if (regex && query.length > PATH_REGEX_MAX_CHARS)
    fail(
      "invalid_args",
      `code_nav: query: a /regex/ may be at most ${PATH_REGEX_MAX_CHARS} characters (got ${query.length})`,
    );
  if (regex) {
    const given = regex[2] as string;
    const bad = [...given].filter((f) => f !== "g" && f !== "y" && !ALLOWED_FLAGS.has(f));
    if (bad.length > 0)
      fail(
        "invalid_args",
        `code_nav: query: unknown regex flag "${bad.join("")}" in ${query} (allowed: d, i, m, s, u, v; g and y are stripped)`,
      );
    const flags = [...new Set(given)].filter((f) => f !== "g" && f !== "y").join("");
    let re: RegExp;
    try {
      re = new RegExp(regex[1] as string, flags);
    } catch (error) {
      fail("invalid_args", `code_nav: query: invalid regular expression ${query}: ${(error as Error).message}`);
    }
    return { kind: "regex", test: (rel) => re.test(rel), filter: (paths) => filterInWorker(re, query, paths) };
  }
  if (GLOB_CHARS.test(query)) {
    const pattern = query.replace(/^(\.\/)+/, "");
    const re = globToRegExp(pattern);
    const onName = !pattern.includes("/");
    return inline("glob", (rel) => re.test(onName ? rel.slice(rel.lastIndexOf("/") + 1) : rel));
  }
  const caseSensitive = query !== query.toLowerCase();
  const needle = caseSensitive ? query : query.toLowerCase();
  return inline("substring", (rel) => (caseSensitive ? rel : rel.toLowerCase()).includes(needle));
}

/** Globs and substrings are linear in the path: tested on the agent's thread. */
function inline(kind: PathMatcher["kind"], test: (rel: string) => boolean): PathMatcher {
  return { kind, test, filter: async (paths) => paths.filter(test) };
}

function filterInWorker(re: RegExp, query: string, paths: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(REGEX_WORKER, { eval: true, workerData: { source: re.source, flags: re.flags, paths } });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(
        new ToolFailureError(
          "regex_time_limit",
          `code_nav: query: ${query} ran past the time limit of ${PATH_REGEX_TIME_LIMIT_MS} ms over ${paths.length} paths (a nested repetition such as (a+)+ backtracks without end): simplify the pattern`,
        ),
      );
    }, PATH_REGEX_TIME_LIMIT_MS);
    worker.once("message", (matched: string[]) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(matched);
    });
    worker.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
