import { globToRegExp } from "../search/glob-to-regexp";
import { fail } from "../tools/tool-failure-error";

export interface PathMatcher {
  kind: "glob" | "regex" | "substring";
  test(rel: string): boolean;
}

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
    return { kind: "regex", test: (rel) => re.test(rel) };
  }
  if (GLOB_CHARS.test(query)) {
    const pattern = query.replace(/^(\.\/)+/, "");
    const re = globToRegExp(pattern);
    const onName = !pattern.includes("/");
    return { kind: "glob", test: (rel) => re.test(onName ? rel.slice(rel.lastIndexOf("/") + 1) : rel) };
  }
  const caseSensitive = query !== query.toLowerCase();
  const needle = caseSensitive ? query : query.toLowerCase();
  return { kind: "substring", test: (rel) => (caseSensitive ? rel : rel.toLowerCase()).includes(needle) };
}
