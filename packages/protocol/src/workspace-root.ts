/**
 * Where every session's workspace is mounted inside its container: the root tool paths are relative to,
 * classification resolves against, and the driver mounts the workspace volume at.
 */
export const WORKSPACE_ROOT = "/workspace";
