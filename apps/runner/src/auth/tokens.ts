import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { UserRepository } from "@berth/db";
import { ROLES, type Role } from "@berth/protocol";
import { sha256Hex } from "@berth/protocol/node";

// The roles are a wire type (protocol api/users.ts); auth code keeps importing them from here.
export { ROLES, type Role };

/**
 * Who is calling. `tokenId` is the id of the credential presented (an API token's, or a browser session's
 * when `credential` is "browser": browser-sessions.ts); sockets join its room so revoking it ends them.
 */
export type Principal = {
  userId: string;
  name: string;
  role: Role;
  tokenId: string;
  credential?: "token" | "browser";
  /** A browser session's sign-in token: its sockets also join that token's room, so revoking it ends them. */
  mintedWith?: string;
};

/** Tokens are random and shown once; only their sha256 is stored. */
export function newToken(): string {
  return `berth_${crypto.randomBytes(32).toString("base64url")}`;
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}

const ID_BYTES = 12;
/** Ids take their bytes from a pool the CSPRNG fills 4 KiB at a time: one read per id cost more than the rest of a read_file call's id work. */
const idPool = Buffer.alloc(ID_BYTES * 341);
let idPoolAt = idPool.length;

export function newId(prefix: string): string {
  if (idPoolAt + ID_BYTES > idPool.length) {
    crypto.randomFillSync(idPool);
    idPoolAt = 0;
  }
  const id = idPool.toString("hex", idPoolAt, idPoolAt + ID_BYTES);
  idPoolAt += ID_BYTES;
  return `${prefix}_${id}`;
}

const ADMIN_USER_ID = "user_admin";

/**
 * Makes sure an admin token exists: BERTH_ADMIN_TOKEN when set (automation, tests), otherwise one
 * generated once and kept in the data dir with mode 0600. Returns where the token comes from; the
 * token itself is never logged.
 */
export async function ensureAdminToken(users: UserRepository, opts: { dataDir: string; envToken?: string | undefined }): Promise<{ source: "env" | "file"; file?: string }> {
  await users.ensure({ id: ADMIN_USER_ID, name: "admin", role: "admin" });
  let token = opts.envToken;
  let file: string | undefined;
  if (!token) {
    file = path.join(opts.dataDir, "admin-token");
    if (fs.existsSync(file)) {
      token = fs.readFileSync(file, "utf8").trim();
    } else {
      token = newToken();
      fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
    }
  }
  const tokenId = opts.envToken ? "tok_env_admin" : "tok_file_admin";
  const tokenHash = hashToken(token);
  await users.upsertToken({ id: tokenId, userId: ADMIN_USER_ID, name: opts.envToken ? "BERTH_ADMIN_TOKEN" : "generated admin token", tokenHash });
  return file ? { source: "file", file } : { source: "env" };
}

/**
 * Extracts an API token from `Authorization: Bearer …`, and only from there: a token in a cookie (the old
 * `berth_token`) is not read, so a page cannot spend it without the script that holds it. The browser
 * signs in with a browser session of its own (browser-sessions.ts).
 */
export function tokenFromHeaders(headers: { authorization?: string | undefined }): string | null {
  const auth = headers.authorization;
  if (auth?.startsWith("Bearer ")) return auth.slice("Bearer ".length).trim() || null;
  return null;
}
