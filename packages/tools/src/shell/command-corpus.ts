import { readFileSync } from "node:fs";

/** `cmd <<EOF`, `<<-'EOF'`, `<< "SQL"`, but not a here-string (`<<<`). */
const HERE_DOC = /(?<!<)<<(-?)\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\2/;

/**
 * Splits corpus text into commands: one per line, `# ` lines are section titles, a here-document runs
 * to its delimiter line, and a line ending in a backslash continues on the next (as in a shell).
 */
export function parseCommandCorpus(text: string): string[] {
  const lines = text.split("\n");
  const commands: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || line.startsWith("# ")) continue;
    const parts = [line];
    while (parts[parts.length - 1]!.endsWith("\\") && i + 1 < lines.length) parts.push(lines[++i]!);
    const hereDoc = HERE_DOC.exec(line);
    if (hereDoc) {
      const [, dash, , delimiter] = hereDoc;
      while (i + 1 < lines.length) {
        const body = lines[++i]!;
        parts.push(body);
        if ((dash ? body.replace(/^\t+/, "") : body) === delimiter) break;
      }
    }
    commands.push(parts.join("\n"));
  }
  return commands;
}

/** The corpus kept as test data: varied real-world commands, written for Berth. */
export function loadCommandCorpus(): string[] {
  return parseCommandCorpus(readFileSync(new URL("./testdata/commands.txt", import.meta.url), "utf8"));
}
