import type { Repositories, UnfinishedRun } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import {
  AgentTerminalInputResultSchema,
  AgentTerminalListResultSchema,
  AgentTerminalOkResultSchema,
  AgentTerminalOpenResultSchema,
  AgentTerminalReadResultSchema,
  AppError,
  TERMINAL_MAX_OPEN,
  TerminalMethod,
  type TerminalInfo,
  type TerminalOpen,
} from "@berth/protocol";
import { callerOf } from "../auth/browser-sessions";
import { authorize } from "../auth/authorize";
import type { Principal } from "../auth/tokens";
import type { FollowOnOutcome } from "../recovery/follow-on";
import { logSize } from "../runs/run-logs";
import type { RunService } from "../runs/run-service";
import type { SessionService } from "../sessions/session-service";
import { type TerminalEmit, TerminalFollower } from "./terminal-follower";

/** One agent read at most; the agent holds up to 1 MiB unread per terminal. */
const READ_CHUNK = 256 * 1024;
/** A long poll's wait inside the agent; the call's own deadline is a little longer. */
const POLL_MS = 20_000;
const RETRY_MS = 1_000;
const AUTH_CACHE_MS = 30_000;

interface LiveTerminal {
  info: TerminalInfo;
  ownerId: string;
  userId: string;
  followers: Set<TerminalFollower>;
  /** The agent reported the shell's exit; output may still be left to read. */
  exitCode: number | null;
  closedBy: string | null;
  ended: boolean;
  /** Aborts the pump's current wait when it only watches for the exit (nobody had room). */
  wake: AbortController | null;
}

/**
 * Terminals of sessions (docs/api.md "Terminals"): each a PTY the agent made inside the container, and a
 * run (`kind: "terminal"`) whose stdout log is the transcript, sealed with a receipt when it closes.
 *
 * One pump per terminal reads the agent by offset (a long poll) and appends to the transcript; it reads
 * only while some attached client has room in its window, so a terminal nobody reads is left to the
 * agent's bounded buffer (which then blocks the program) and costs the runner nothing. While nobody has
 * room the pump still watches for the shell's exit, to end the run.
 */
export class TerminalService {
  private readonly terminals = new Map<string, LiveTerminal>();
  /** Credential × terminal → until when its last permission check holds. */
  private readonly allowed = new Map<string, number>();
  /** Sessions whose agent was asked for terminals a previous runner left behind. */
  private readonly swept = new Set<string>();

  constructor(
    private readonly deps: {
      repos: Repositories;
      driver: SandboxDriver;
      sessions: SessionService;
      runs: RunService;
      dataDir: string;
    },
  ) {}

  async open(principal: Principal, input: TerminalOpen): Promise<TerminalInfo> {
    const session = await this.session(principal, input.sessionId);
    if (session.autonomy === "read-only") {
      throw new AppError({
        code: "forbidden",
        message: `Terminals are off in read-only sessions: session ${session.id} has autonomy read-only (change it to default or above to open one)`,
      });
    }
    await this.sweep(session.id);
    const running = [...this.terminals.values()].filter((t) => t.info.sessionId === session.id && !t.ended);
    if (running.length >= TERMINAL_MAX_OPEN) {
      throw new AppError({
        code: "conflict",
        message: `Too many open terminals in session ${session.id}: ${running.length} open (limit ${TERMINAL_MAX_OPEN}); close one first`,
      });
    }
    const name = input.name ?? nextName(running.map((t) => t.info.name));
    const runId = await this.deps.runs.start({
      sessionId: session.id,
      userId: principal.userId,
      tool: "terminal",
      kind: "terminal",
      args: { name, cols: input.cols, rows: input.rows },
      actionClass: "execute",
      caller: callerOf(principal),
    });
    let opened: { terminalId: string };
    try {
      opened = await this.deps.driver.request(
        session.id,
        TerminalMethod.Open,
        { cols: input.cols, rows: input.rows, env: session.env },
        AgentTerminalOpenResultSchema,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.deps.runs.finish(runId, { ok: false, output: message, error: { code: "spawn_failed", message } });
      throw new AppError({
        code: "sandbox_unavailable",
        message: `Could not open a terminal in session ${session.id}: ${message}`,
      });
    }
    const terminal: LiveTerminal = {
      info: {
        terminalId: opened.terminalId,
        runId,
        sessionId: session.id,
        name,
        status: "running",
        exitCode: null,
        cols: input.cols,
        rows: input.rows,
        bytes: 0,
        createdAt: new Date().toISOString(),
      },
      ownerId: session.ownerId,
      userId: principal.userId,
      followers: new Set(),
      exitCode: null,
      closedBy: null,
      ended: false,
      wake: null,
    };
    this.terminals.set(opened.terminalId, terminal);
    // The run page finds the terminal by its run (and a reloaded IDE its run by the terminal).
    await this.deps.runs.setDetails(runId, { terminalId: opened.terminalId, name });
    void this.pump(terminal);
    return { ...terminal.info };
  }

  /**
   * Failover: follows on a terminal another runner opened, from where its stored transcript ends. The agent holds
   * a terminal's output until a read asks past it, and a pump asks past only what is stored (pump), so what the
   * dead runner had not stored is still there; a read the agent refuses (those bytes were released) is not followed.
   */
  async adopt(run: UnfinishedRun): Promise<FollowOnOutcome> {
    const { terminalId, name } = run.details;
    const session = await this.deps.repos.sessions.get(run.sessionId);
    if (typeof terminalId !== "string" || !session) return { followed: false, why: "its terminal or session is unknown" };
    const bytes = logSize(this.deps.dataDir, run.id, "stdout");
    let probe;
    try {
      // Reads nothing: only whether the agent still holds everything from `bytes` on, and whether the shell runs.
      probe = await this.deps.driver.request(run.sessionId, TerminalMethod.Read, { terminalId, offset: bytes, maxBytes: 0, waitMs: 0 }, AgentTerminalReadResultSchema, { timeoutMs: 10_000 });
    } catch (error) {
      return { followed: false, why: error instanceof Error ? error.message : String(error) };
    }
    if (probe.exitCode !== null) return { followed: false, why: `it had exited in its sandbox (exit ${probe.exitCode})` };
    const args = run.args as { cols?: unknown; rows?: unknown };
    this.deps.runs.adopt(run, "terminal");
    const terminal: LiveTerminal = {
      info: {
        terminalId,
        runId: run.id,
        sessionId: run.sessionId,
        name: typeof name === "string" ? name : nextName([]),
        status: "running",
        exitCode: null,
        cols: typeof args.cols === "number" ? args.cols : 80,
        rows: typeof args.rows === "number" ? args.rows : 24,
        bytes,
        createdAt: run.startedAt.toISOString(),
      },
      ownerId: session.ownerId,
      userId: run.userId,
      followers: new Set(),
      exitCode: null,
      closedBy: null,
      ended: false,
      wake: null,
    };
    this.terminals.set(terminalId, terminal);
    void this.pump(terminal);
    return { followed: true };
  }

  /** The session's terminals, running and ended-but-not-closed, oldest first. */
  async list(principal: Principal, sessionId: string): Promise<TerminalInfo[]> {
    const session = await this.session(principal, sessionId);
    await this.sweep(session.id);
    return [...this.terminals.values()].filter((t) => t.info.sessionId === session.id).map((t) => ({ ...t.info }));
  }

  /**
   * Follows a terminal from `offset` for one client: what it missed is replayed from the transcript,
   * then it gets output live. Returns the follower (the caller stops it when the client goes).
   */
  async attach(
    principal: Principal,
    terminalId: string,
    offset: number,
    client: { emit: TerminalEmit; exit: (exitCode: number | null) => void },
  ): Promise<{ follower: TerminalFollower; info: TerminalInfo }> {
    const terminal = await this.mine(principal, terminalId);
    const from = Math.min(offset, terminal.info.bytes);
    const follower = new TerminalFollower(
      { dataDir: this.deps.dataDir, runId: terminal.info.runId, logged: () => terminal.info.bytes, written: () => this.deps.runs.written(terminal.info.runId) },
      from,
      client.emit,
      client.exit,
      () => this.wake(terminal),
    );
    terminal.followers.add(follower);
    follower.start();
    if (terminal.ended) follower.end(terminal.info.exitCode);
    return { follower, info: { ...terminal.info } };
  }

  detach(terminalId: string, follower: TerminalFollower): void {
    follower.stop();
    this.terminals.get(terminalId)?.followers.delete(follower);
  }

  async input(principal: Principal, terminalId: string, data: string): Promise<{ bytesWritten: number }> {
    const terminal = await this.running(principal, terminalId);
    this.deps.driver.touch(terminal.info.sessionId);
    return this.deps.driver.request(
      terminal.info.sessionId,
      TerminalMethod.Input,
      { terminalId, data: Buffer.from(data, "utf8").toString("base64") },
      AgentTerminalInputResultSchema,
    );
  }

  async resize(principal: Principal, terminalId: string, cols: number, rows: number): Promise<TerminalInfo> {
    const terminal = await this.running(principal, terminalId);
    await this.deps.driver.request(
      terminal.info.sessionId,
      TerminalMethod.Resize,
      { terminalId, cols, rows },
      AgentTerminalOkResultSchema,
    );
    terminal.info.cols = cols;
    terminal.info.rows = rows;
    return { ...terminal.info };
  }

  async rename(principal: Principal, terminalId: string, name: string): Promise<TerminalInfo> {
    const terminal = await this.mine(principal, terminalId);
    terminal.info.name = name;
    if (!terminal.ended) {
      await this.deps.runs.setDetails(terminal.info.runId, { terminalId, name });
    }
    return { ...terminal.info };
  }

  /** Ends the shell (SIGHUP to its group); an ended terminal is forgotten. */
  async close(principal: Principal, terminalId: string): Promise<{ terminalId: string; closed: true }> {
    const terminal = await this.mine(principal, terminalId);
    if (terminal.ended) {
      this.forget(terminal);
      return { terminalId, closed: true };
    }
    terminal.closedBy = principal.userId;
    await this.deps.driver
      .request(terminal.info.sessionId, TerminalMethod.Close, { terminalId }, AgentTerminalOkResultSchema)
      .catch(() => undefined);
    this.wake(terminal);
    return { terminalId, closed: true };
  }

  private async session(principal: Principal, sessionId: string) {
    if (callerOf(principal) !== "browser") {
      throw new AppError({
        code: "forbidden",
        message:
          "Terminals are for a person signed in to the IDE: an API token cannot open or use one (the bash tool takes the same commands, through admission)",
      });
    }
    // A session the caller may not read is a 404; one they may read but not open a shell in, a 403 (docs/api.md, Roles: terminal use).
    const session = await this.deps.sessions.get(sessionId, principal);
    authorize(principal, "terminal", "use", { id: session.id, ownerId: session.ownerId });
    return session;
  }

  /** The terminal if the principal may use it: the session owner (or an admin), signed in in the browser. */
  private async mine(principal: Principal, terminalId: string): Promise<LiveTerminal> {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw new AppError({ code: "not_found", message: `Unknown terminalId: ${terminalId}` });
    // Every keystroke is an event: a credential's permission is checked once per AUTH_CACHE_MS, not per
    // key (a revoked credential loses its sockets at once: credential-revocation.ts).
    const key = `${principal.tokenId}\0${terminalId}`;
    if ((this.allowed.get(key) ?? 0) > Date.now()) return terminal;
    await this.session(principal, terminal.info.sessionId);
    this.allowed.set(key, Date.now() + AUTH_CACHE_MS);
    return terminal;
  }

  private async running(principal: Principal, terminalId: string): Promise<LiveTerminal> {
    const terminal = await this.mine(principal, terminalId);
    if (terminal.ended || terminal.exitCode !== null) {
      throw new AppError({
        code: "conflict",
        message: `Terminal has exited: ${terminalId} (exit ${terminal.info.exitCode ?? terminal.exitCode})`,
      });
    }
    return terminal;
  }

  private wake(terminal: LiveTerminal): void {
    terminal.wake?.abort();
  }

  private wantsData(terminal: LiveTerminal): boolean {
    if (terminal.exitCode !== null || terminal.closedBy !== null) return true;
    for (const follower of terminal.followers) if (follower.hasRoom()) return true;
    return false;
  }

  private async pump(terminal: LiveTerminal): Promise<void> {
    const { sessionId, terminalId, runId } = terminal.info;
    while (!terminal.ended) {
      const maxBytes = this.wantsData(terminal) ? READ_CHUNK : 0;
      const wake = new AbortController();
      if (maxBytes === 0) terminal.wake = wake;
      let reply;
      try {
        reply = await this.deps.driver.request(
          sessionId,
          TerminalMethod.Read,
          { terminalId, offset: terminal.info.bytes, maxBytes, waitMs: POLL_MS },
          AgentTerminalReadResultSchema,
          { timeoutMs: POLL_MS + 10_000, signal: wake.signal },
        );
      } catch (error) {
        if (wake.signal.aborted) continue;
        // The sandbox is gone (its runs are interrupted with it) or lost the terminal: it has ended.
        if (this.deps.driver.get(sessionId)?.status !== "ready" || /Unknown terminalId/.test(String(error))) {
          await this.end(terminal, null, "interrupted");
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      } finally {
        if (terminal.wake === wake) terminal.wake = null;
      }
      const data = Buffer.from(reply.data, "base64");
      if (reply.offset === terminal.info.bytes && data.length > 0) {
        this.deps.runs.appendOutput(runId, "stdout", data);
        const offset = terminal.info.bytes;
        terminal.info.bytes += data.length;
        for (const follower of terminal.followers) follower.push(offset, data);
        // The next read releases these bytes in the agent: only once they are stored, so a runner that dies
        // leaves the agent holding whatever it had not stored, and failover follows on without a gap (adopt).
        await this.deps.runs.written(runId);
      }
      if (reply.exitCode !== null) terminal.exitCode = reply.exitCode;
      if (reply.eof) await this.end(terminal, reply.exitCode, terminal.closedBy ? "closed" : "exited");
    }
  }

  /** Ends the terminal's run (receipt sealed) and tells its followers once they have every byte. */
  private async end(
    terminal: LiveTerminal,
    exitCode: number | null,
    how: "exited" | "closed" | "interrupted",
  ): Promise<void> {
    if (terminal.ended) return;
    terminal.ended = true;
    terminal.info.status = "exited";
    terminal.info.exitCode = exitCode;
    const { terminalId, name, runId } = terminal.info;
    const details = { terminalId, name, exitCode, ...(terminal.closedBy ? { closedBy: terminal.closedBy } : {}) };
    const output = `terminal ${name} ${how}${exitCode === null ? "" : ` (exit ${exitCode})`}`;
    await this.deps.runs
      .finish(
        runId,
        how === "exited"
          ? { ok: exitCode === 0, output, details }
          : // Closed from its tab: ended by the person, as Stop ends a run.
            {
              ok: false,
              output,
              details,
              error: { code: how === "closed" ? "aborted" : "interrupted", message: output },
            },
      )
      .catch(() => undefined);
    for (const follower of terminal.followers) follower.end(exitCode);
    if (terminal.closedBy) this.forget(terminal);
  }

  private forget(terminal: LiveTerminal): void {
    for (const follower of terminal.followers) follower.stop();
    this.terminals.delete(terminal.info.terminalId);
    for (const key of this.allowed.keys()) if (key.endsWith(`\0${terminal.info.terminalId}`)) this.allowed.delete(key);
  }

  /** Shells a previous runner left in the container have no run to record them: hang them up once. */
  private async sweep(sessionId: string): Promise<void> {
    if (this.swept.has(sessionId) || !this.deps.driver.get(sessionId)) return;
    this.swept.add(sessionId);
    const { terminals } = await this.deps.driver
      .request(sessionId, TerminalMethod.List, {}, AgentTerminalListResultSchema)
      .catch(() => ({ terminals: [] }));
    for (const orphan of terminals) {
      if (this.terminals.has(orphan.terminalId) || orphan.exitCode !== null) continue;
      await this.deps.driver
        .request(sessionId, TerminalMethod.Close, { terminalId: orphan.terminalId }, AgentTerminalOkResultSchema)
        .catch(() => undefined);
    }
  }
}

/** "Terminal 1", "Terminal 2", …: the first number no open tab uses. */
export function nextName(taken: string[]): string {
  for (let n = 1; ; n++) if (!taken.includes(`Terminal ${n}`)) return `Terminal ${n}`;
}
