import type { AgentConfig } from "../config";
import { CodeIndex } from "./code-index";

const indexes = new Map<string, CodeIndex>();

/** One index per workspace root for the life of the agent (the first code_nav call builds it). */
export function codeIndexFor(root: string, config: AgentConfig): CodeIndex {
  let index = indexes.get(root);
  if (!index) {
    index = new CodeIndex(root, config);
    indexes.set(root, index);
  }
  return index;
}

/** Tests: drop an index and its watchers. */
export function dropCodeIndex(root: string): void {
  indexes.get(root)?.close();
  indexes.delete(root);
}
