/**
 * Compiles a glob to a RegExp over "/"-separated relative paths. `**\/` matches zero or more folders
 * (so `**\/*.ts` matches `a.ts` at the top), `*` and `?` stay inside one segment, `[...]` and `{a,b}`
 * work as in shells. `*` also matches dotfiles: models look for `.env` with `*` and expect to find it.
 */
export function globToRegExp(pattern: string): RegExp {
  let source = "";
  let braceDepth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === "*") {
      if (pattern[i + 1] === "*") {
        const atSegmentStart = i === 0 || pattern[i - 1] === "/";
        if (atSegmentStart && pattern[i + 2] === "/") {
          source += "(?:[^/]*/)*";
          i += 2;
        } else if (atSegmentStart && i + 2 === pattern.length) {
          source += ".*";
          i += 1;
        } else {
          source += ".*";
          i += 1;
        }
      } else {
        source += "[^/]*";
      }
    } else if (ch === "?") {
      source += "[^/]";
    } else if (ch === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) {
        source += "\\[";
      } else {
        let body = pattern.slice(i + 1, close);
        if (body.startsWith("!")) body = "^" + body.slice(1);
        source += "[" + body.replace(/\\/g, "\\\\") + "]";
        i = close;
      }
    } else if (ch === "{") {
      braceDepth++;
      source += "(?:";
    } else if (ch === "}" && braceDepth > 0) {
      braceDepth--;
      source += ")";
    } else if (ch === "," && braceDepth > 0) {
      source += "|";
    } else {
      source += ch.replace(/[.+^$()|\\\]{}]/g, "\\$&");
    }
  }
  // An unbalanced "{" is a literal brace, not a syntax error.
  if (braceDepth > 0) return new RegExp("^" + escapeAll(pattern) + "$");
  try {
    return new RegExp("^" + source + "$");
  } catch {
    return new RegExp("^" + escapeAll(pattern) + "$");
  }
}

function escapeAll(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** How deep a walk must go: a pattern without `**` never matches below its own segment count. */
export function globMaxDepth(pattern: string): number {
  return pattern.includes("**") ? Number.POSITIVE_INFINITY : pattern.split("/").length;
}
