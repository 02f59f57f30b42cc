import type { RequestId } from "@modelcontextprotocol/sdk/types.js";

/**
 * The tools/call requests in flight on a stateless MCP endpoint, so a `notifications/cancelled` can
 * reach them. Stateless Streamable HTTP gives every POST its own SDK Server, and a client sends its
 * cancellation in a POST of its own: the SDK's per-server bookkeeping never sees the request it names.
 *
 * A request is known by the session, the caller and the JSON-RPC id the client gave it. Two clients of
 * the same user in the same session that reuse an id could cancel each other's call; with no MCP session
 * id (stateless) nothing finer identifies the client.
 */
export class InFlightCalls {
  readonly #calls = new Map<string, Set<AbortController>>();

  /** Registers a call; its signal aborts when `parent` does or when the client cancels it. */
  track(
    owner: { sessionId: string; userId: string },
    requestId: RequestId,
    parent: AbortSignal,
  ): { signal: AbortSignal; cancelledByClient: () => boolean; done: () => void } {
    const key = keyOf(owner, requestId);
    const controller = new AbortController();
    const onParentAbort = () => controller.abort(parent.reason);
    if (parent.aborted) onParentAbort();
    else parent.addEventListener("abort", onParentAbort, { once: true });
    let set = this.#calls.get(key);
    if (!set) this.#calls.set(key, (set = new Set()));
    set.add(controller);
    return {
      signal: controller.signal,
      cancelledByClient: () => controller.signal.aborted && !parent.aborted,
      done: () => {
        parent.removeEventListener("abort", onParentAbort);
        const current = this.#calls.get(key);
        current?.delete(controller);
        if (current?.size === 0) this.#calls.delete(key);
      },
    };
  }

  /** The client cancelled `requestId`: aborts the call it names, if it is still running. */
  cancel(owner: { sessionId: string; userId: string }, requestId: RequestId | undefined, reason?: string): boolean {
    if (requestId === undefined) return false;
    const set = this.#calls.get(keyOf(owner, requestId));
    if (!set) return false;
    for (const controller of set) controller.abort(new Error(reason ? `cancelled by the client: ${reason}` : "cancelled by the client"));
    return true;
  }

  get size(): number {
    return this.#calls.size;
  }
}

function keyOf(owner: { sessionId: string; userId: string }, requestId: RequestId): string {
  // JSON keeps the id's type: the request 1 and the request "1" are different requests.
  return JSON.stringify([owner.sessionId, owner.userId, requestId]);
}
