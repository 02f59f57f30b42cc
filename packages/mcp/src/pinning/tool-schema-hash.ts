import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json";

/**
 * sha256 of the canonical JSON of `{description, inputSchema}`: what a model is told about the tool.
 * A change to either can turn a harmless tool into a different one (a "rug pull"), so it is pinned.
 */
export function toolSchemaHash(tool: { description?: string | undefined; inputSchema: unknown }): string {
  return createHash("sha256")
    .update(canonicalJson({ description: tool.description ?? "", inputSchema: tool.inputSchema }))
    .digest("hex");
}
