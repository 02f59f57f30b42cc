import type { Server, Socket } from "socket.io";
import type { InvalidationBus } from "./invalidation-bus";

/** The rooms a socket joins on connect, so one credential's or one user's sockets can be found at once. */
export const credentialRoom = (credentialId: string): string => `credential:${credentialId}`;
export const userRoom = (userId: string): string => `user:${userId}`;

/**
 * Ends the sockets of a credential (a revoked token, a signed-out browser session) or of a user (removed
 * or disabled) the moment that happens: a socket is authenticated once at its handshake, so without this
 * it would keep acting on a credential that no longer exists. Rooms go through the socket.io adapter, so
 * with the Redis adapter this reaches the sockets held by every runner. The same moment it tells the
 * credential caches (api-tokens.ts, browser-sessions.ts) through the invalidation bus, so a cached credential
 * is refused on its next request too.
 */
export class CredentialRevocation {
  private io: Server | null = null;

  constructor(private readonly bus?: InvalidationBus) {}

  /** Called once the socket.io server exists (it is created after the HTTP routes). */
  attach(io: Server): void {
    this.io = io;
  }

  /** Puts a newly authenticated socket in its credential's and its user's rooms. */
  async track(socket: Socket, principal: { userId: string; tokenId: string; mintedWith?: string }): Promise<void> {
    // A browser session's socket is also in the room of the token it signed in with (revoking that ends it).
    const minted = principal.mintedWith ? [credentialRoom(principal.mintedWith)] : [];
    await socket.join([credentialRoom(principal.tokenId), ...minted, userRoom(principal.userId)]);
  }

  disconnectCredential(credentialId: string): void {
    this.bus?.publish({ kind: "credential", id: credentialId });
    this.io?.in(credentialRoom(credentialId)).disconnectSockets(true);
  }

  disconnectUser(userId: string): void {
    this.bus?.publish({ kind: "user", id: userId });
    this.io?.in(userRoom(userId)).disconnectSockets(true);
  }

  /** Resolves once the other runners have been told (InvalidationBus.sent): a route awaits it before answering. */
  async sent(): Promise<void> {
    await this.bus?.sent();
  }
}
