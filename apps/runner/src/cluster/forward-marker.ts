import crypto from "node:crypto";

/** The header a runner puts on what it forwards to a session's owner: `<runnerId> <unixMillis> <hmac>`. */
export const FORWARD_MARKER_HEADER = "x-berth-forwarded-by";

/** How far a marker's clock may be from ours: runners share NTP, a replay later than this is refused. */
const MARKER_SKEW_MS = 60_000;
/**
 * A path's marker is signed once and reused this long: a burst of calls to one session's tools pays one HMAC, and
 * a reused marker is as good as a replay within MARKER_SKEW_MS, which the marker allows anyway.
 */
const SIGNED_REUSE_MS = 1_000;
const SIGNED_MAX = 1_000;

/**
 * Proves "another runner of this deployment sent this" with the cluster secret (BERTH_CLUSTER_SECRET), which
 * never travels: the marker carries an HMAC over the sender's id, the time and the request's path. What a
 * valid marker grants is only "do not forward this again" (one hop at most); the request's own credential is
 * still authenticated and authorized by the owner as if it came straight to it.
 */
export class ForwardMarker {
  /** The secret as a key object once: each request's HMAC then skips preparing it again. */
  private readonly secret: crypto.KeyObject | undefined;
  /** Markers signed lately, by signed path (the query left out). */
  private readonly signed = new Map<string, { at: number; value: string }>();

  constructor(
    private readonly runnerId: string,
    secret: string | undefined,
  ) {
    this.secret = secret === undefined ? undefined : crypto.createSecretKey(Buffer.from(secret, "utf8"));
  }

  /** Whether this runner can forward at all (a marker it cannot sign would not be believed). */
  get canSign(): boolean {
    return this.secret !== undefined;
  }

  /** The header value for a request to `path` (query included or not: only the path is signed). */
  sign(path: string, now = Date.now()): string {
    if (!this.secret) throw new Error("BERTH_CLUSTER_SECRET is not set: this runner cannot forward to another");
    const signedPath = pathOf(path);
    const recent = this.signed.get(signedPath);
    if (recent && now >= recent.at && now - recent.at < SIGNED_REUSE_MS) return recent.value;
    const value = `${this.runnerId} ${now} ${mac(this.secret, this.runnerId, now, signedPath)}`;
    if (this.signed.size >= SIGNED_MAX) this.signed.clear();
    this.signed.set(signedPath, { at: now, value });
    return value;
  }

  /** The sending runner's id when `value` is a marker signed with our secret for `path` lately; else null. */
  verify(value: string | string[] | undefined, path: string, now = Date.now()): string | null {
    if (!this.secret || typeof value !== "string") return null;
    const match = /^([a-z0-9-]{1,32}) (\d{1,15}) ([0-9a-f]{64})$/.exec(value);
    if (!match) return null;
    const [, sender = "", time = "", given = ""] = match;
    const at = Number(time);
    if (Math.abs(now - at) > MARKER_SKEW_MS) return null;
    const expected = Buffer.from(mac(this.secret, sender, at, path), "hex");
    return crypto.timingSafeEqual(expected, Buffer.from(given, "hex")) ? sender : null;
  }
}

/** What a marker signs of a request's path: the path without its query. */
function pathOf(path: string): string {
  const query = path.indexOf("?");
  return query === -1 ? path : path.slice(0, query);
}

function mac(secret: crypto.KeyObject, runnerId: string, at: number, path: string): string {
  return crypto.createHmac("sha256", secret).update(`berth-forward-v1\n${runnerId}\n${at}\n${pathOf(path)}`).digest("hex");
}
