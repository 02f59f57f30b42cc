/**
 * Where every session's workspace is mounted inside its container: the root tool paths are relative to,
 * classification resolves against, and the driver mounts the workspace volume at.
 */
export const WORKSPACE_ROOT = "/workspace";

/**
 * Where the skill catalog is mounted read-only inside every session's container (`/skills/<name>/SKILL.md`):
 * read_file, grep and glob may read it; no tool and no workspace process may write it.
 */
export const SKILLS_ROOT = "/skills";
