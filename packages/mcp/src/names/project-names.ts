import { createHash } from "node:crypto";
import { MAX_TOOL_NAME_LENGTH, cutToolName } from "./sanitize-tool-name";

export interface NameClaim {
  /** Stable identity of the tool (e.g. server id + upstream name): the collision suffix hashes it. */
  id: string;
  /** The wanted name, already sanitised (`sanitizeToolName` or `userToolName`). */
  name: string;
}

export interface ProjectedName {
  id: string;
  name: string;
  /** True when the wanted name was taken and a hash suffix was added. */
  suffixed: boolean;
}

/**
 * Gives every claim a unique name, in the order given (callers order by precedence, so the earlier claim
 * keeps the plain name). A taken name gets `_` + a short hash of the claim's id: deterministic, so a tool
 * keeps its name across listings, and never silently overwrites another tool. `reserved` names (built-in
 * and local function tools) count as taken.
 */
export function projectNames(
  claims: readonly NameClaim[],
  opts: { reserved?: Iterable<string> } = {},
): ProjectedName[] {
  const taken = new Set<string>(opts.reserved ?? []);
  const out: ProjectedName[] = [];
  for (const claim of claims) {
    if (!taken.has(claim.name)) {
      taken.add(claim.name);
      out.push({ id: claim.id, name: claim.name, suffixed: false });
      continue;
    }
    const name = suffixedName(claim, taken);
    taken.add(name);
    out.push({ id: claim.id, name, suffixed: true });
  }
  return out;
}

function suffixedName(claim: NameClaim, taken: ReadonlySet<string>): string {
  const digest = createHash("sha256").update(claim.id).digest("hex");
  // 6 hex characters almost always suffice; grow only when even that collides.
  for (let len = 6; len <= digest.length; len += 2) {
    const suffix = `_${digest.slice(0, len)}`;
    const candidate = `${cutToolName(claim.name, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
  // Unreachable short of a sha256 collision; fail loudly rather than overwrite.
  throw new Error(`no free name for tool ${JSON.stringify(claim.id)}`);
}
