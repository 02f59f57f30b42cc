const PATCH_TARGET = /^(?:\*\*\* (?:Add|Delete|Update) File: |\*\*\* Move to: |\+\+\+ |--- )(.+)$/;

/** The files an apply_patch patch touches (envelope or unified diff), as it names them. */
export function patchTargets(patch: string): string[] {
  const targets = new Set<string>();
  for (const line of patch.split(/\r?\n/)) {
    const target = PATCH_TARGET.exec(line)?.[1]?.trim();
    if (!target || target === "/dev/null") continue;
    targets.add(/^[ab]\//.test(target) && line.match(/^(\+\+\+|---) /) ? target.slice(2) : target);
  }
  return [...targets];
}
