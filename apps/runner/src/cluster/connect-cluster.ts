import { createAdapter } from "@socket.io/redis-adapter";
import type { ServerOptions } from "socket.io";
import type { ApprovalService } from "@berth/tools";
import type { Env } from "../env";
import { LocalInvalidationBus, type InvalidationBus } from "../auth/invalidation-bus";
import { LocalClusterBus, type ClusterBus } from "./cluster-bus";
import { ClusterInvalidationBus } from "./cluster-invalidation-bus";
import { RedisClusterBus } from "./redis-cluster-bus";
import { shareApprovalDecisions } from "./share-approval-decisions";

/** What /healthz shows of Redis when BERTH_REDIS_URL is set. */
export interface RedisHealth {
  ok: boolean;
  status: "up" | "down";
}

/**
 * This runner's place among the others (docs/scale-out.md). With BERTH_REDIS_URL: the ClusterBus is Redis, cache
 * invalidations and approval decisions cross runners over it, and socket.io's Redis adapter (on the same two
 * connections) makes `io.to(room)` and `disconnectSockets` reach every runner's sockets. Without it: one runner,
 * everything in-process, and no Redis needed.
 */
export interface Cluster {
  /** Channels between runners (`log:<runId>`, `runner:<runnerId>`, `lease`, ...): Redis, or in-process. */
  bus: ClusterBus;
  /** Whether other runners may be listening (BERTH_REDIS_URL is set). */
  shared: boolean;
  /** What every credential, user and session cache hears invalidations through. */
  invalidation: InvalidationBus;
  /** For the socket.io server; absent for one runner (socket.io's in-memory adapter). */
  socketAdapter?: ServerOptions["adapter"];
  /** Approval decisions made on any runner release the callers waiting on this one. */
  shareApprovals(approvals: ApprovalService): Promise<void>;
  /** Resolves once every subscription made so far (the socket adapter's too) is active at Redis. */
  settled(): Promise<void>;
  /** For /healthz; undefined for one runner. */
  health(): RedisHealth | undefined;
  close(): Promise<void>;
}

export async function connectCluster(env: Pick<Env, "BERTH_REDIS_URL" | "BERTH_RUNNER_ID">, log: (line: string) => void): Promise<Cluster> {
  if (!env.BERTH_REDIS_URL) {
    const bus = new LocalClusterBus();
    return {
      bus,
      shared: false,
      invalidation: new LocalInvalidationBus(),
      shareApprovals: () => Promise.resolve(),
      settled: () => Promise.resolve(),
      health: () => undefined,
      close: () => bus.close(),
    };
  }
  const redis = await RedisClusterBus.connect(env.BERTH_REDIS_URL, log, { name: `berth-runner-${env.BERTH_RUNNER_ID}` });
  const stops: Array<() => Promise<void>> = [];
  let invalidation: ClusterInvalidationBus;
  try {
    invalidation = await ClusterInvalidationBus.start(redis, log);
  } catch (error) {
    await redis.close();
    throw error;
  }
  stops.push(() => invalidation.close());
  const { publisher, subscriber } = redis.clients;
  return {
    bus: redis,
    shared: true,
    invalidation,
    // Replies to a runner's fetchSockets/disconnectSockets request go to that runner's channel only.
    socketAdapter: createAdapter(publisher, subscriber, { publishOnSpecificResponseChannel: true }),
    async shareApprovals(approvals) {
      stops.push(await shareApprovalDecisions(redis, approvals, log));
    },
    settled: () => redis.settled(),
    health: () => (redis.up ? { ok: true, status: "up" } : { ok: false, status: "down" }),
    async close() {
      for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
      await redis.close();
    },
  };
}
