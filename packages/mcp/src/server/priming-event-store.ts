import type { EventStore } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/**
 * The SDK sends the SSE priming event (an event id with empty data, first on every POST stream, for
 * clients on 2025-11-25 or later) only when it has an event store. This endpoint is stateless — each POST
 * is its own transport, possibly on another runner — so there is nothing to replay: the store hands out
 * ids and keeps nothing, and a GET with Last-Event-ID is answered 405 before it reaches the transport.
 */
export function createPrimingEventStore(): EventStore {
  let next = 0;
  return {
    async storeEvent(streamId) {
      next += 1;
      return `${streamId}_${next}`;
    },
    async replayEventsAfter(lastEventId) {
      throw new Error(`stateless endpoint: cannot replay after ${lastEventId}`);
    },
  };
}
