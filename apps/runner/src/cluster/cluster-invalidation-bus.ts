import { randomBytes } from "node:crypto";
import { z } from "zod";
import { formatIssues } from "@berth/protocol";
import { LocalInvalidationBus, type Invalidation, type InvalidationBus, type InvalidationListener } from "../auth/invalidation-bus";
import type { ClusterBus } from "./cluster-bus";

export const INVALIDATE_CHANNEL = "invalidate";
/** Where the runners that applied an invalidation confirm it to the runner that sent it. */
const confirmChannel = (busId: string): string => `invalidate-confirm:${busId}`;
/**
 * How long a revoking request waits for the other runners to confirm. A runner that is up confirms within
 * milliseconds; one whose event loop is stuck this long serves no request either, and its entry still ages out.
 */
export const CONFIRM_TIMEOUT_MS = 5_000;

const EventSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("credential"), id: z.string() }),
  z.object({ kind: z.literal("user"), id: z.string() }),
  z.object({ kind: z.literal("session"), id: z.string() }),
]);

/** What goes over the `invalidate` channel: the invalidation, which bus sent it, and its number there. */
const InvalidateMessageSchema = z.object({ from: z.string(), seq: z.number().int().optional(), event: EventSchema });
/** What a runner that applied invalidation `seq` sends back on the sender's confirm channel. */
const ConfirmMessageSchema = z.object({ seq: z.number().int() });

interface Pending {
  confirmed: number;
  /** How many other runners Redis handed the message to; unknown until PUBLISH answers. */
  expected?: number;
  /** Gives up on the confirmations still missing, once PUBLISH has answered. */
  timer?: NodeJS.Timeout;
  resolve: () => void;
}

/**
 * The InvalidationBus of a runner among several: this runner's caches still hear an invalidation synchronously
 * (so a revoked token is refused on the very next request here), and every other runner's caches hear it over
 * the ClusterBus a moment later. Each of them confirms once its caches have dropped the entry, and `sent()`
 * waits for every confirmation: Redis taking the message is not enough, since a request can reach the other
 * runner before the message does (they arrive there on different connections). A message this bus sent itself
 * is not delivered twice.
 */
export class ClusterInvalidationBus implements InvalidationBus {
  private readonly local = new LocalInvalidationBus();
  private readonly id = randomBytes(8).toString("hex");
  private readonly unsubscribes: Array<() => Promise<void>> = [];
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  /** Settles when every publish so far has been confirmed by the runners it reached, or given up on (logged). */
  private inFlight: Promise<void> = Promise.resolve();

  private constructor(
    private readonly bus: ClusterBus,
    private readonly log: (line: string) => void,
    private readonly confirmTimeoutMs: number,
  ) {}

  /** Resolves once both channels are subscribed: from then on, no invalidation from another runner is missed. */
  static async start(bus: ClusterBus, log: (line: string) => void, opts: { confirmTimeoutMs?: number } = {}): Promise<ClusterInvalidationBus> {
    const self = new ClusterInvalidationBus(bus, log, opts.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS);
    self.unsubscribes.push(await bus.subscribe(confirmChannel(self.id), (bytes) => self.confirmed(bytes)));
    self.unsubscribes.push(await bus.subscribe(INVALIDATE_CHANNEL, (bytes) => self.receive(bytes)));
    return self;
  }

  publish(event: Invalidation): void {
    this.local.publish(event);
    const seq = ++this.seq;
    const message: z.infer<typeof InvalidateMessageSchema> = { from: this.id, seq, event };
    const confirmed = new Promise<void>((resolve) => {
      // Registered before PUBLISH answers: a confirmation can arrive first, on the other connection.
      const pending: Pending = { confirmed: 0, resolve };
      this.pending.set(seq, pending);
      this.bus.publish(INVALIDATE_CHANNEL, JSON.stringify(message)).then(
        (reached) => {
          // Redis counts this runner's own subscription too.
          const expected = Math.max(0, reached - 1);
          pending.expected = expected;
          if (pending.confirmed >= expected) return this.settle(seq);
          pending.timer = setTimeout(() => {
            this.log(`invalidation of ${event.kind} ${event.id}: ${expected - pending.confirmed} of ${expected} other runners did not confirm it within ${this.confirmTimeoutMs / 1000} s (their cached entry ages out by itself)`);
            this.settle(seq);
          }, this.confirmTimeoutMs);
        },
        (error: unknown) => {
          // The other runners keep the stale entry until its TTL or their next write: say so, once per failure.
          this.log(`invalidation of ${event.kind} ${event.id} not sent to the other runners: ${(error as Error).message}`);
          this.settle(seq);
        },
      );
    });
    this.inFlight = Promise.all([this.inFlight, confirmed]).then(() => undefined);
  }

  sent(): Promise<void> {
    return this.inFlight;
  }

  subscribe(listener: InvalidationListener): () => void {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    const unsubscribes = this.unsubscribes.splice(0);
    await Promise.all(unsubscribes.map((unsubscribe) => unsubscribe()));
    for (const seq of [...this.pending.keys()]) this.settle(seq);
  }

  private settle(seq: number): void {
    const pending = this.pending.get(seq);
    if (!pending) return;
    this.pending.delete(seq);
    clearTimeout(pending.timer);
    pending.resolve();
  }

  private receive(bytes: Buffer): void {
    const parsed = this.parse(bytes, InvalidateMessageSchema, "invalidate");
    if (!parsed || parsed.from === this.id) return;
    this.local.publish(parsed.event);
    if (parsed.seq === undefined) return;
    this.bus.publish(confirmChannel(parsed.from), JSON.stringify({ seq: parsed.seq })).catch((error: unknown) => {
      this.log(`invalidate: confirming ${parsed.event.kind} ${parsed.event.id} to its sender failed: ${(error as Error).message}`);
    });
  }

  private confirmed(bytes: Buffer): void {
    const parsed = this.parse(bytes, ConfirmMessageSchema, "invalidate-confirm");
    const pending = parsed && this.pending.get(parsed.seq);
    if (!pending) return;
    pending.confirmed++;
    if (pending.expected !== undefined && pending.confirmed >= pending.expected) this.settle(parsed.seq);
  }

  private parse<T>(bytes: Buffer, schema: z.ZodType<T>, channel: string): T | undefined {
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString("utf8"));
    } catch {
      this.log(`${channel}: a message that is not JSON (${bytes.length} bytes) ignored`);
      return undefined;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    this.log(`${channel}: a message ignored: ${formatIssues(parsed.error, "message")}`);
    return undefined;
  }
}
