/** A file's content as an approval text carries it (the runner's bindCallText): what the operator reads. */
export interface BoundContent {
  /** `s.py (120 of 120 bytes, sha256 …)` */
  title: string;
  content: string;
  truncated: boolean;
}

const HEADER = /^--- (.+ \((?:first )?\d+ of \d+ bytes, sha256 [0-9a-f]{64}\)) ---$/;

/** The content block of an approval text, or undefined when the call binds no file content. */
export function boundContent(text: string): BoundContent | undefined {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => HEADER.test(line));
  if (start === -1) return undefined;
  const body: string[] = [];
  let end = start + 1;
  for (; end < lines.length && (lines[end] as string).startsWith("| "); end++)
    body.push((lines[end] as string).slice(2));
  const footer = lines[end] ?? "";
  if (!footer.startsWith("--- end of ")) return undefined;
  return {
    title: HEADER.exec(lines[start] as string)?.[1] ?? "",
    content: body.join("\n"),
    truncated: footer.endsWith("(truncated) ---"),
  };
}
