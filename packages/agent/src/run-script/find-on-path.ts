import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";

/** Finds an executable by bare name on a PATH string, like `command -v`. */
export async function findOnPath(name: string, searchPath: string): Promise<string | null> {
  for (const dir of searchPath.split(":")) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
