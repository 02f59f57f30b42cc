import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { READ_FILE_MAX_BYTES, ReadFileArgsSchema, type ReadFileDetails } from "@berth/protocol";
import { defineTool, okResult } from "../tools/tool-context";
import { sha256Hex } from "@berth/protocol/node";
import { decodeText, splitLinesKeepEnds, statFile } from "../workspace/text-file";

export const readFileTool = defineTool({
  name: "read_file",
  schema: ReadFileArgsSchema,
  async run(args, { workspace }) {
    const file = await workspace.resolveForRead(args.path);
    const { size } = await statFile(file, READ_FILE_MAX_BYTES);
    // Small files are read synchronously (the common case, and the RPC latency target); big ones off-thread.
    const bytes = size <= 256 * 1024 ? readFileSync(file.real) : await readFile(file.real);
    if (args.encoding === "base64") {
      // Base64 returns the whole file: line ranges mean nothing for binary content.
      const totalLines = splitLinesKeepEnds(bytes.toString("latin1")).length;
      const details: ReadFileDetails = {
        path: file.rel,
        content: bytes.toString("base64"),
        startLine: 1,
        endLine: totalLines,
        totalLines,
        truncated: false,
        encoding: "base64",
        sha256: sha256Hex(bytes),
      };
      return okResult(details, { bytes: size });
    }
    const text = decodeText(bytes, file.input, " (use encoding=base64)");
    return okResult({ ...sliceLines(file.rel, text, args), sha256: sha256Hex(bytes) }, { bytes: size });
  },
});

export function sliceLines(
  displayPath: string,
  text: string,
  args: { startLine?: number | undefined; endLine?: number | undefined; maxChars: number },
): ReadFileDetails {
  const lines = splitLinesKeepEnds(text);
  const totalLines = lines.length;
  const startLine = Math.max(1, args.startLine ?? 1);
  const requestedEnd = Math.min(args.endLine ?? totalLines, totalLines);
  let content = "";
  let endLine = startLine - 1;
  let truncated = false;
  for (let n = startLine; n <= requestedEnd; n++) {
    const line = lines[n - 1] as string;
    if (content.length + line.length > args.maxChars) {
      truncated = true;
      // A single line longer than maxChars is cut rather than returning nothing.
      if (endLine < startLine) {
        content = line.slice(0, args.maxChars);
        endLine = n;
      }
      break;
    }
    content += line;
    endLine = n;
  }
  const details: ReadFileDetails = {
    path: displayPath,
    content,
    startLine,
    // Nothing returned: endLine < startLine says so (startLine - 1, or the last line when past the end).
    endLine: endLine >= startLine ? endLine : Math.min(startLine - 1, totalLines),
    totalLines,
    truncated,
    encoding: "utf8",
  };
  if (truncated) details.nextStartLine = endLine + 1;
  return details;
}
