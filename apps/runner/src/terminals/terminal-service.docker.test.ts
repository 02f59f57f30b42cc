import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io as connect, type Socket } from "socket.io-client";
import { RunLogs } from "../runs/run-logs";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";
import { until } from "../testing/until";

let kit: TestRunner;
let cookie: string;
const sockets: Socket[] = [];

type Ack<T> = { error: { code: string; message: string } | null; result: T };
type Info = { terminalId: string; runId: string; bytes: number; status: string; exitCode: number | null; name: string };

/** A browser-like client: signed in with a browser session's cookie, acking every chunk it takes. */
async function browserSocket(): Promise<Socket> {
  const socket = connect(kit.url, { extraHeaders: { cookie }, transports: ["websocket"], forceNew: true });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  return socket;
}

function call<T>(socket: Socket, event: string, payload: unknown): Promise<Ack<T>> {
  return new Promise((resolve) =>
    socket.emit(event, payload, (error: Ack<T>["error"], result: T) => resolve({ error, result })),
  );
}

/** Collects a terminal's output from `offset`, in order, failing on a gap or a duplicate. */
function transcript(socket: Socket, terminalId: string, offset = 0) {
  const state = {
    offset,
    text: "",
    bytes: [] as Buffer[],
    exitCode: undefined as number | null | undefined,
    acks: true,
  };
  socket.on("terminal:output", (event: { terminalId: string; offset: number; data: Buffer }, ack: () => void) => {
    if (event.terminalId !== terminalId) return;
    if (event.offset !== state.offset)
      throw new Error(`gap or duplicate: offset ${event.offset}, expected ${state.offset}`);
    state.offset += event.data.length;
    state.bytes.push(Buffer.from(event.data));
    state.text += Buffer.from(event.data).toString("utf8");
    if (state.acks) ack();
  });
  socket.on("terminal:exit", (event: { terminalId: string; exitCode: number | null }) => {
    if (event.terminalId === terminalId) state.exitCode = event.exitCode;
  });
  return state;
}


beforeAll(async () => {
  kit = await startTestRunner();
  const minted = await kit.api<{ secret: string }>("POST", "/api/browser-sessions", { userAgent: "terminal test" });
  expect(minted.status).toBe(201);
  cookie = `berth_browser=${minted.body.secret}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await kit?.close();
});

describe("terminals over socket.io (real runner, real container)", () => {
  it("a login shell on a PTY: cd and export persist, resize reaches the program, every byte once across a reattach", async () => {
    const sessionId = await kit.createSession({ autonomy: "default" });
    const socket = await browserSocket();
    const opened = await call<Info>(socket, "terminal:open", { sessionId, cols: 80, rows: 24 });
    expect(opened.error).toBeNull();
    const { terminalId, runId } = opened.result;
    const seen = transcript(socket, terminalId);
    expect((await call(socket, "terminal:attach", { terminalId, offset: 0 })).error).toBeNull();
    await call(socket, "terminal:input", { terminalId, data: "cd /tmp && export A=1\r" });
    await call(socket, "terminal:input", { terminalId, data: "pwd; echo A=$A; echo TERM=$TERM\r" });
    await until(() => /\/tmp\r\nA=1\r\nTERM=xterm-256color/.test(seen.text), "pwd and $A");
    const resized = await call<Info>(socket, "terminal:resize", { terminalId, cols: 111, rows: 30 });
    expect(resized.error).toBeNull();
    await call(socket, "terminal:input", { terminalId, data: "tput cols\r" });
    await until(
      () => /\r111\r\n/.test(seen.text),
      "tput cols 111",
      15_000,
      () => JSON.stringify(seen.text.slice(-300)),
    );

    // A second client (a reloaded page) reattaches from where the first one is and gets the rest once.
    // Pauses inside the loop keep it running while the second client attaches, however fast the machine is.
    await call(socket, "terminal:input", {
      terminalId,
      data: "for i in $(seq 1 3000); do echo line-$i; case $i in 1000|2000) sleep 0.5;; esac; done\r",
    });
    await until(() => /line-300\r\n/.test(seen.text), "the loop under way");
    const reloaded = await browserSocket();
    const from = seen.offset;
    const before = Buffer.concat(seen.bytes).subarray(0, from).toString("utf8");
    const rest = transcript(reloaded, terminalId, from);
    expect((await call(reloaded, "terminal:attach", { terminalId, offset: from })).error).toBeNull();
    // The end arrives on the reattached client, or was already shown before it attached (a very fast loop).
    await until(() => /line-3000\r\n/.test(before + rest.text), "the end of the loop on the reattached client");
    const joined = before + rest.text;
    for (const n of [1, 299, 300, 301, 1500, 3000])
      expect(joined.match(new RegExp(`^line-${n}\\r$`, "gm"))?.length, `line-${n}`).toBe(1);

    // The transcript is the run's log; closing the tab ends the shell and seals the run as aborted.
    const listed = await call<{ terminals: Info[] }>(socket, "terminal:list", { sessionId });
    expect(listed.result.terminals.map((t) => t.terminalId)).toEqual([terminalId]);
    expect((await call(socket, "terminal:close", { terminalId })).error).toBeNull();
    await until(() => rest.exitCode !== undefined, "terminal:exit");
    expect(rest.exitCode).toBe(129);
    const { body } = await kit.api<{
      run: { kind: string; status: string; outcome: string; receiptId: string | null; userId: string };
    }>("GET", `/api/runs/${runId}`);
    expect(body.run).toMatchObject({ kind: "terminal", status: "finished", outcome: "aborted" });
    expect(body.run.receiptId).toBeTruthy();
    const log = fs.readFileSync(RunLogs.pathFor(kit.dataDir, runId, "stdout"), "utf8");
    expect(log.startsWith(seen.text.slice(0, 200))).toBe(true);
    expect(log).toContain("line-3000");
  });

  it("REPLs and full-screen programs: node, python3 with Ctrl+D, top, vi, and Ctrl+Z job control", async () => {
    const sessionId = await kit.createSession({ autonomy: "default" });
    const socket = await browserSocket();
    const { terminalId } = (await call<Info>(socket, "terminal:open", { sessionId, cols: 100, rows: 30 })).result;
    const seen = transcript(socket, terminalId);
    await call(socket, "terminal:attach", { terminalId, offset: 0 });
    const type = (data: string) => call(socket, "terminal:input", { terminalId, data });
    const after = (pattern: RegExp, what: string) => {
      const from = seen.text.length;
      return until(
        () => pattern.test(seen.text.slice(from)),
        what,
        15_000,
        () => JSON.stringify(seen.text.slice(-400)),
      );
    };
    await until(() => /\$ $/.test(seen.text), "the prompt");

    let next = after(/Type ".help"[\s\S]*> /, "the node prompt");
    await type("node\r");
    await next;
    // node colours the 42 (ESC[33m … ESC[39m around it).
    next = after(/\n\S*42\S*\r\n/, "node's 42");
    await type("6*7\r");
    await next;
    next = after(/\$ $/, "the shell after .exit");
    await type(".exit\r");
    await next;

    next = after(/>>> $/, "the python prompt");
    await type("python3\r");
    await next;
    next = after(/\$ $/, "the shell after Ctrl+D");
    await type("\x04");
    await next;

    next = after(/load average/, "top's screen");
    await type("top\r");
    await next;
    next = after(/\$ $/, "the shell after q");
    await type("q");
    await next;

    next = after(/~/, "vi's empty buffer");
    await type("vi /tmp/from-vi.txt\r");
    await next;
    next = after(/\$ $/, "the shell after :wq");
    await type("ihello-from-vi\x1b:wq\r");
    await next;
    next = after(/\rhello-from-vi\r\n/, "the file vi wrote");
    await type("cat /tmp/from-vi.txt\r");
    await next;

    next = after(/Stopped\s+sleep 100/, "Ctrl+Z stopping the job");
    await type("sleep 100\r");
    await new Promise((r) => setTimeout(r, 300));
    await type("\x1a");
    await next;
    next = after(/Terminated\s+sleep 100/, "the stopped job killed");
    await type("kill %1; sleep 0.2; jobs\r");
    await next;
    await call(socket, "terminal:close", { terminalId });
  });

  it("a terminal nobody reads stops its program instead of filling the runner's disk or memory", async () => {
    const sessionId = await kit.createSession({ autonomy: "default" });
    const socket = await browserSocket();
    const { terminalId, runId } = (await call<Info>(socket, "terminal:open", { sessionId, cols: 80, rows: 24 })).result;
    const seen = transcript(socket, terminalId);
    seen.acks = false; // a client that stopped taking output (a frozen tab)
    await call(socket, "terminal:attach", { terminalId, offset: 0 });
    await call(socket, "terminal:input", { terminalId, data: "yes 0123456789abcdef\r" });
    await new Promise((r) => setTimeout(r, 3000));
    const size = () => fs.statSync(RunLogs.pathFor(kit.dataDir, runId, "stdout")).size;
    const first = size();
    await new Promise((r) => setTimeout(r, 1500));
    // At most one window to the client plus one agent read beyond it.
    expect(first).toBeLessThan(2 * 1024 * 1024);
    expect(size()).toBe(first);
    await call(socket, "terminal:input", { terminalId, data: "\x03" });
    await call(socket, "terminal:close", { terminalId });
  });

  it("an API token cannot open a terminal, and a read-only session has none", async () => {
    const sessionId = await kit.createSession({ autonomy: "default" });
    const scripted = await kit.socket(TEST_ADMIN_TOKEN);
    const refused = await call(scripted, "terminal:open", { sessionId, cols: 80, rows: 24 });
    expect(refused.error).toMatchObject({ code: "forbidden" });
    expect(refused.error?.message).toMatch(/API token/);

    const readOnly = await kit.createSession({ autonomy: "read-only" });
    const socket = await browserSocket();
    const denied = await call(socket, "terminal:open", { sessionId: readOnly, cols: 80, rows: 24 });
    expect(denied.error).toMatchObject({ code: "forbidden" });
    expect(denied.error?.message).toMatch(/read-only/);

    const bad = await call(socket, "terminal:open", { sessionId, cols: 0, rows: 24 });
    expect(bad.error).toMatchObject({ code: "bad_request" });
    expect(bad.error?.message).toMatch(/cols/);
  });
});
