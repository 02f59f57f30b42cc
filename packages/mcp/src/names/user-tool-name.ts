import { MAX_TOOL_NAME_LENGTH, cutToolName, sanitizeNameSegment } from "./sanitize-tool-name";

const USER_PREFIX = "user_";
const TOOL_SEPARATOR = "_tool_";
// Characters kept after `user_{id}_tool_`: at least one of the tool's own plus the longest usual suffix.
const USER_TOOL_ROOM = 16;

// Sanitising collapses `__` and trims edge `_`, so such ids could not come back out of a name.
const USER_ID = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** Thrown when a user id cannot be encoded into a tool name without becoming ambiguous. */
export class UserToolNameError extends Error {
  override readonly name = "UserToolNameError";
}

/**
 * `user_{userId}_tool_{toolName}`: how a per-user MCP tool is named for models. The tool part is
 * sanitised; the user id is kept verbatim so `parseUserToolName` returns it exactly.
 */
export function userToolName(userId: string, toolName: string): string {
  const prefix = `${USER_PREFIX}${userId}${TOOL_SEPARATOR}`;
  // The id must come back out of the name exactly: `a_tool` would parse as user `a`.
  if (!USER_ID.test(userId) || parseUserToolName(`${prefix}x`)?.userId !== userId) {
    throw new UserToolNameError(
      `userId must be letters, digits, - and single inner _ without "_tool_", got ${JSON.stringify(userId.slice(0, 80))}`,
    );
  }
  // Room for a tool part plus a collision suffix, so a suffix never cuts into the user id.
  if (prefix.length > MAX_TOOL_NAME_LENGTH - USER_TOOL_ROOM) {
    throw new UserToolNameError(
      `userId is too long for a ${MAX_TOOL_NAME_LENGTH}-character tool name: ${userId.length} characters`,
    );
  }
  // The whole name already starts with a letter, so the tool part needs no `tool_` prefix.
  const tool = sanitizeNameSegment(toolName) || "tool";
  return cutToolName(`${prefix}${tool}`);
}

/**
 * Splits a per-user tool name on the FIRST `_tool_`. Anything that is not `user_…_tool_…`, or whose user
 * id or tool name is empty, is not a match (null): `user__tool_x` and `user_1_tool_` never resolve.
 */
export function parseUserToolName(name: string): { userId: string; toolName: string } | null {
  if (!name.startsWith(USER_PREFIX)) return null;
  const rest = name.slice(USER_PREFIX.length);
  const at = rest.indexOf(TOOL_SEPARATOR);
  if (at <= 0) return null;
  const userId = rest.slice(0, at);
  const toolName = rest.slice(at + TOOL_SEPARATOR.length);
  if (!toolName) return null;
  return { userId, toolName };
}
