import { EditArgsSchema, type EditDetails } from "@berth/protocol";
import { defineTool, okResult } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";
import { atomicWrite } from "../workspace/atomic-write";
import { readTextFile } from "../workspace/text-file";
import { sha256Hex } from "@berth/protocol/node";
import { assertUnchanged } from "./write-file";

const EDIT_MAX_BYTES = 20 * 1024 * 1024;

export const editTool = defineTool({
  name: "edit",
  schema: EditArgsSchema,
  async run(args, { workspace }) {
    // Error order is part of the contract (docs/tools.md): argument faults before file faults.
    if (args.old_string === "") fail("invalid_args", "old_string must not be empty");
    if (args.old_string === args.new_string)
      fail("invalid_args", "old_string and new_string are identical: nothing to change");
    const file = await workspace.resolveForWrite(args.path);
    await assertUnchanged(file.real, file.rel, args.expectedSha256);
    const { text, mode } = await readTextFile(file, EDIT_MAX_BYTES);

    let oldString = args.old_string;
    let newString = args.new_string;
    let count = countOccurrences(text, oldString);
    // A CRLF file matches an old_string written with LF, and the replacement keeps CRLF.
    if (count === 0 && text.includes("\r\n") && oldString.includes("\n") && !oldString.includes("\r\n")) {
      oldString = toCrlf(oldString);
      newString = toCrlf(newString);
      count = countOccurrences(text, oldString);
    } else if (text.includes("\r\n") && !newString.includes("\r\n")) {
      newString = toCrlf(newString);
    }
    if (count === 0) {
      fail("not_found", `old_string not found in ${args.path}. Ensure whitespace and indentation match exactly.`);
    }
    if (count > 1 && !args.replaceAll) {
      fail(
        "not_unique",
        `old_string is not unique: found ${count} occurrences in ${args.path}. Add surrounding context or set replaceAll=true.`,
      );
    }
    // split/join and indexOf are literal: "$&" in new_string stays "$&".
    const updated = args.replaceAll
      ? text.split(oldString).join(newString)
      : text.slice(0, text.indexOf(oldString)) + newString + text.slice(text.indexOf(oldString) + oldString.length);
    const bytes = Buffer.from(updated, "utf8");
    // Checked again just before the rename: a write between our read and now is a conflict, not lost.
    await atomicWrite(file.real, bytes, {
      mode,
      beforeCommit: () => assertUnchanged(file.real, file.rel, args.expectedSha256),
    });
    const details: EditDetails = {
      path: file.rel,
      replacements: args.replaceAll ? count : 1,
      sha256: sha256Hex(bytes),
    };
    return okResult(details, { crlf: text.includes("\r\n") });
  },
});

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** LF → CRLF without doubling an existing CRLF. */
function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}
