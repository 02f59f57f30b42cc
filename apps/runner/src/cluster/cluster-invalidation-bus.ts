import { randomBytes } from "node:crypto";
import { z } from "zod";
import { formatIssues } from "@berth/protocol";
import { LocalInvalidationBus, type Invalidation, type InvalidationBus, type InvalidationListener } from "../auth/invalidation-bus";
import type { ClusterBus } from "./cluster-bus";

export const INVALIDATE_CHANNEL = "invalidate";

/** What goes over the `invalidate` channel: the invalidation and which bus sent it. */
const InvalidateMessageSchema = z.object({
  from: z.string(),
  event: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("credential"), id: z.string() }),
    z.object({ kind: z.literal("user"), id: z.string() }),
    z.object({ kind: z.literal("session"), id: z.string() }),
  ]),
});

/**
 * The InvalidationBus of a runner among several: this runner's caches still hear an invalidation synchronously
 * (so a revoked token is refused on the very next request here), and every other runner's caches hear it over
 * the ClusterBus a moment later. A message this bus sent itself is not delivered twice.
 */
export class ClusterInvalidationBus implements InvalidationBus {
  private readonly local = new LocalInvalidationBus();
  private readonly id = randomBytes(8).toString("hex");
  private unsubscribe: (() => Promise<void>) | null = null;
  /** Settles when every publish so far has been answered (acknowledged or failed: a failure is logged). */
  private inFlight: Promise<void> = Promise.resolve();

  private constructor(
    private readonly bus: ClusterBus,
    private readonly log: (line: string) => void,
  ) {}

  /** Resolves once the channel is subscribed: from then on, no invalidation from another runner is missed. */
  static async start(bus: ClusterBus, log: (line: string) => void): Promise<ClusterInvalidationBus> {
    const self = new ClusterInvalidationBus(bus, log);
    self.unsubscribe = await bus.subscribe(INVALIDATE_CHANNEL, (bytes) => self.receive(bytes));
    return self;
  }

  publish(event: Invalidation): void {
    this.local.publish(event);
    const message: z.infer<typeof InvalidateMessageSchema> = { from: this.id, event };
    const published = this.bus.publish(INVALIDATE_CHANNEL, JSON.stringify(message)).catch((error: unknown) => {
      // The other runners keep the stale entry until its TTL or their next write: say so, once per failure.
      this.log(`invalidation of ${event.kind} ${event.id} not sent to the other runners: ${(error as Error).message}`);
    });
    this.inFlight = Promise.all([this.inFlight, published]).then(() => undefined);
  }

  sent(): Promise<void> {
    return this.inFlight;
  }

  subscribe(listener: InvalidationListener): () => void {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    await this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private receive(bytes: Buffer): void {
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString("utf8"));
    } catch {
      return this.log(`invalidate: a message that is not JSON (${bytes.length} bytes) ignored`);
    }
    const parsed = InvalidateMessageSchema.safeParse(json);
    if (!parsed.success) return this.log(`invalidate: a message ignored: ${formatIssues(parsed.error, "message")}`);
    if (parsed.data.from === this.id) return;
    this.local.publish(parsed.data.event);
  }
}
