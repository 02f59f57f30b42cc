// globSync for Node 20 (fs.globSync arrived in Node 22), enough for the conformance suite's own use:
// `**/name` and `*` patterns relative to `cwd`, matched by walking with readdirSync.
import fs from "node:fs";
import path from "node:path";

function toRegExp(pattern) {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      i++;
      if (pattern[i + 1] === "/") {
        i++;
        source += "(?:.*/)?";
      } else source += ".*";
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const re = toRegExp(String(pattern));
  const found = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(cwd, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (re.test(child)) found.push(child);
      if (entry.isDirectory()) walk(child);
    }
  };
  walk("");
  return found;
}
