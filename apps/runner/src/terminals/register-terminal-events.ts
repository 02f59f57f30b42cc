import {
  TerminalAttachSchema,
  TerminalCloseSchema,
  TerminalInputSchema,
  TerminalListSchema,
  TerminalOpenSchema,
  TerminalRenameSchema,
  TerminalResizeSchema,
  type TerminalExitEvent,
} from "@berth/protocol";
import type { Principal } from "../auth/tokens";
import type { BerthServerSocket, OnClientEvent } from "../sockets/socket-server";
import type { TerminalFollower } from "./terminal-follower";
import type { TerminalService } from "./terminal-service";

/**
 * The terminal:* events of one connection (docs/api.md "Terminals"). terminal:output is emitted with an
 * ack the client calls once it has taken the chunk: the acks are the flow control (TerminalFollower).
 */
export function registerTerminalEvents(socket: BerthServerSocket, principal: Principal, terminals: TerminalService, on: OnClientEvent): void {
  const following = new Map<string, TerminalFollower>();
  const unfollow = (terminalId: string) => {
    const follower = following.get(terminalId);
    if (follower) terminals.detach(terminalId, follower);
    following.delete(terminalId);
  };
  socket.on("disconnect", () => {
    for (const terminalId of [...following.keys()]) unfollow(terminalId);
  });

  on("terminal:open", async (payload) => terminals.open(principal, TerminalOpenSchema.parse(payload)));

  on("terminal:list", async (payload) => ({
    terminals: await terminals.list(principal, TerminalListSchema.parse(payload).sessionId),
  }));

  on("terminal:attach", async (payload) => {
    const { terminalId, offset } = TerminalAttachSchema.parse(payload);
    // A second attach from this client replaces the first (it reattaches after a gap).
    unfollow(terminalId);
    const { follower, info } = await terminals.attach(principal, terminalId, offset, {
      emit: (at, data, onAck) => socket.emit("terminal:output", { terminalId, offset: at, data }, onAck),
      exit: (exitCode) => socket.emit("terminal:exit", { terminalId, exitCode } satisfies TerminalExitEvent),
    });
    following.set(terminalId, follower);
    return { ...info, offset: Math.min(offset, info.bytes) };
  });

  on("terminal:input", async (payload) => {
    const { terminalId, data } = TerminalInputSchema.parse(payload);
    return terminals.input(principal, terminalId, data);
  });

  on("terminal:resize", async (payload) => {
    const { terminalId, cols, rows } = TerminalResizeSchema.parse(payload);
    return terminals.resize(principal, terminalId, cols, rows);
  });

  on("terminal:rename", async (payload) => {
    const { terminalId, name } = TerminalRenameSchema.parse(payload);
    return terminals.rename(principal, terminalId, name);
  });

  on("terminal:close", async (payload) => {
    const { terminalId } = TerminalCloseSchema.parse(payload);
    unfollow(terminalId);
    return terminals.close(principal, terminalId);
  });
}
