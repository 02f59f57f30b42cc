import { createClient } from "redis";
import { AppError, redactSecrets } from "@berth/protocol";
import type { ClusterBus, ClusterListener } from "./cluster-bus";

export type RedisClient = ReturnType<typeof createClient>;

/** Our channels' prefix, apart from the socket.io adapter's (`socket.io#…`) on the same connections. */
const PREFIX = "berth:";
const CONNECT_TIMEOUT_MS = 10_000;

/** The URL as it may be shown: the password (and a user name) masked. */
export function maskRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    if (parsed.username) parsed.username = "***";
    return parsed.href.replace(/\/$/, "");
  } catch {
    return "redis://(unparseable URL)";
  }
}

interface Channel {
  listeners: Set<ClusterListener>;
  /** Settles once Redis confirmed the SUBSCRIBE; later subscribers to the channel wait for it too. */
  active: Promise<void>;
  dispatch: (message: Buffer) => void;
}

/**
 * The ClusterBus over Redis pub/sub (docs/scale-out.md): one publisher and one subscriber connection per
 * runner, which the socket.io Redis adapter shares (`clients`). node-redis reconnects by itself and subscribes
 * again what was subscribed; a lost connection is logged once per outage, its URL's password masked.
 */
export class RedisClusterBus implements ClusterBus {
  private readonly channels = new Map<string, Channel>();
  private closed = false;

  private constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
  ) {}

  /**
   * Connects both connections; refuses to start (AppError) when Redis does not answer within 10 s or refuses the
   * password. `name` is the connections' CLIENT SETNAME, so `CLIENT LIST` shows which runner holds them.
   */
  static async connect(url: string, log: (line: string) => void, opts: { name?: string } = {}): Promise<RedisClusterBus> {
    const secrets = [new URL(url).password, new URL(url).username].filter((s) => s.length > 0).map(decodeURIComponent);
    const shown = maskRedisUrl(url);
    const publisher = createClient({ url, socket: { connectTimeout: 5_000 }, ...(opts.name ? { name: opts.name } : {}) });
    const subscriber = publisher.duplicate();
    // A refused password will not get better by retrying: starting fails at once instead of after the timeout.
    let refuse: (error: AppError) => void = () => undefined;
    const refused = new Promise<never>((_, reject) => (refuse = reject));
    for (const [name, client] of [["publisher", publisher], ["subscriber", subscriber]] as const) {
      let down = false;
      // Every failed reconnect emits an error; one line says the connection is lost, one that it is back.
      client.on("error", (error: Error) => {
        if (/^(WRONGPASS|NOAUTH)/.test(error.message)) refuse(new AppError({ code: "internal", message: `BERTH_REDIS_URL: Redis at ${shown} refused the password (${error.message.split(" ")[0]})` }));
        if (down) return;
        down = true;
        log(`Redis ${name} connection to ${shown} lost: ${redactSecrets(error.message, secrets)} (reconnecting)`);
      });
      client.on("ready", () => {
        if (!down) return;
        down = false;
        log(`Redis ${name} connection to ${shown} is back`);
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new AppError({ code: "internal", message: `BERTH_REDIS_URL: Redis at ${shown} did not answer within ${CONNECT_TIMEOUT_MS / 1000} s` })),
        CONNECT_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([Promise.all([publisher.connect(), subscriber.connect()]), timeout, refused]);
    } catch (error) {
      publisher.destroy();
      subscriber.destroy();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return new RedisClusterBus(publisher, subscriber);
  }

  /** The two connections, for `@socket.io/redis-adapter` (its channels are its own, on the same connections). */
  get clients(): { publisher: RedisClient; subscriber: RedisClient } {
    return { publisher: this.publisher, subscriber: this.subscriber };
  }

  /** For /healthz: both connections ready. */
  get up(): boolean {
    return this.publisher.isReady && this.subscriber.isReady;
  }

  async publish(channel: string, message: Buffer | string): Promise<number> {
    // PUBLISH answers with the number of subscriber connections that got it: one per runner on the channel.
    return await this.publisher.publish(PREFIX + channel, message);
  }

  async subscribe(channel: string, listener: ClusterListener): Promise<() => Promise<void>> {
    let entry = this.channels.get(channel);
    if (!entry) {
      const listeners = new Set<ClusterListener>();
      const dispatch = (message: Buffer) => {
        for (const l of [...listeners]) l(message);
      };
      entry = { listeners, dispatch, active: this.subscriber.subscribe(PREFIX + channel, dispatch, true) };
      this.channels.set(channel, entry);
    }
    const current = entry;
    current.listeners.add(listener);
    try {
      await current.active;
    } catch (error) {
      current.listeners.delete(listener);
      if (current.listeners.size === 0 && this.channels.get(channel) === current) this.channels.delete(channel);
      throw error;
    }
    return async () => {
      if (!current.listeners.delete(listener) || current.listeners.size > 0) return;
      if (this.channels.get(channel) === current) this.channels.delete(channel);
      if (!this.closed) await this.subscriber.unsubscribe(PREFIX + channel, current.dispatch, true);
    };
  }

  async subscribers(channel: string): Promise<number> {
    const counts = await this.publisher.pubSubNumSub(PREFIX + channel);
    return Number(counts[PREFIX + channel] ?? 0);
  }

  /**
   * Resolves once every subscription sent so far on the subscriber connection (the adapter's included, which it
   * does not await) is active: commands on one connection are answered in order.
   */
  async settled(): Promise<void> {
    const unsubscribe = await this.subscribe("settled", () => undefined);
    await unsubscribe();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.channels.clear();
    await Promise.allSettled([this.subscriber.close(), this.publisher.close()]);
  }
}
