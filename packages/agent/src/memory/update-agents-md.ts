import { UpdateAgentsMdArgsSchema, type UpdateAgentsMdDetails } from "@berth/protocol";
import { defineTool, okResult } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";
import { atomicWrite } from "../workspace/atomic-write";
import { readTextFile } from "../workspace/text-file";

const AGENTS_MD = "AGENTS.md";
const MAX_BYTES = 8 * 1024 * 1024;

/** The AGENTS.md memory file at the workspace root: read, replace, or add a note to the end. */
export const updateAgentsMdTool = defineTool({
  name: "update_agents_md",
  schema: UpdateAgentsMdArgsSchema,
  async run(args, { workspace }) {
    const file =
      args.action === "read" ? await workspace.resolve(AGENTS_MD) : await workspace.resolveForWrite(AGENTS_MD);
    const current = file.exists ? (await readTextFile(file, MAX_BYTES)).text : null;
    if (args.action === "read") {
      const details: UpdateAgentsMdDetails = {
        path: AGENTS_MD,
        action: "read",
        exists: current !== null,
        content: current ?? "",
      };
      return { ok: true, output: current ?? "", details: { ...details } };
    }
    const text = args.content ?? args.text;
    if (text === undefined) return fail("invalid_args", `content: required for action=${args.action}`);
    let next = text;
    if (args.action === "append") {
      // A note starts on its own line and ends with one.
      if (current) next = current + (current.endsWith("\n") ? "" : "\n") + next;
      if (!next.endsWith("\n")) next += "\n";
    }
    const bytes = Buffer.from(next, "utf8");
    if (bytes.length > MAX_BYTES)
      fail("too_large", `AGENTS.md would be ${bytes.length} bytes (limit ${MAX_BYTES} bytes)`);
    await atomicWrite(file.real, bytes);
    return okResult({ path: AGENTS_MD, action: args.action, exists: true, bytesWritten: Buffer.byteLength(text) });
  },
});
