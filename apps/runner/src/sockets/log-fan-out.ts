import type { BroadcastOperator, Server, Socket } from "socket.io";
import type { ServerToClientEvents } from "@berth/protocol";
import type { LogStream } from "../runs/run-logs";
import { LogFollower } from "./log-follower";

/** Where an output event goes: one socket (a catch-up) or the room of caught-up followers (a live chunk). */
export type OutputTarget = Pick<BroadcastOperator<ServerToClientEvents, unknown>, "emit">;

/**
 * The followers of one log. A live chunk is encoded once and broadcast to the room of followers that are
 * caught up (socket.io's adapter encodes a broadcast once and shares one WebSocket frame among its sockets);
 * one whose queue has grown, or that is not at the chunk's offset, leaves the room first and catches up
 * from disk on its own (LogFollower). Never `volatile`: a dropped packet would be a gap no one knows of.
 */
export class LogFanOut {
  private readonly followers = new Set<LogFollower>();
  private readonly room: string;

  constructor(
    private readonly io: Server,
    key: string,
    private readonly source: { dataDir: string; runId: string; stream: LogStream },
    private readonly send: (to: OutputTarget, offset: number, data: string) => void,
  ) {
    this.room = `log:${key}`;
  }

  get size(): number {
    return this.followers.size;
  }

  /** Starts following from `offset`: replay from disk, then live. Returns the follower and the offset replayed to. */
  follow(socket: Socket, offset: number): { follower: LogFollower; sent: number } {
    const follower = new LogFollower(socket, { ...this.source, room: this.room }, offset, (at, data) => this.send(socket, at, data));
    this.followers.add(follower);
    return { follower, sent: follower.start() };
  }

  unfollow(follower: LogFollower): void {
    follower.stop();
    this.followers.delete(follower);
  }

  /** A chunk just appended to the log (already on disk); `bytes` is its length in the file. */
  push(offset: number, data: string, bytes: number): void {
    let anyLive = false;
    for (const follower of this.followers) {
      if (!follower.live) continue;
      if (follower.keepsUp(offset)) anyLive = true;
      else follower.fallBehind();
    }
    if (!anyLive) return;
    // Local: the runner that writes a log is the one whose followers read it (their offsets are its files').
    this.send(this.io.local.to(this.room), offset, data);
    for (const follower of this.followers) if (follower.live) follower.sent += bytes;
  }
}
