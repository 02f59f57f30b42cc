import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, emitWithAck, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

let kit: TestRunner;
let devToken: string;
let devSession: string;
beforeAll(async () => {
  kit = await startTestRunner();
  const user = await kit.api<{ id: string }>("POST", "/api/users", { name: "dana", role: "developer" });
  devToken = (await kit.api<{ token: string }>("POST", "/api/tokens", { userId: user.body.id, name: "dana's script" })).body.token;
  // Created with the defaults, as a new user would.
  devSession = (await kit.api<{ id: string }>("POST", "/api/sessions", {}, devToken)).body.id;
  const written = await kit.tool(devSession, "write_file", { path: "hello.py", content: "import sys\nprint('hello from the owner')\nprint('to stderr', file=sys.stderr)\n" }, { token: devToken });
  if (!written.body.ok) throw new Error(`write_file: ${JSON.stringify(written.body)}`);
}, 120_000);
afterAll(async () => {
  await kit?.api("DELETE", `/api/sessions/${devSession}`);
  await kit?.close();
});

type Me = { userId: string; name: string; credential?: string; tokenId: string };
type Parked = { status: "parked"; approvalId: string; sha256: string };
type Result = { ok: boolean; runId?: string; receiptId?: string; error?: { code: string; message: string } };

/** A request with exactly these headers (no bearer unless given), from the runner's own origin. */
async function send<T>(method: string, route: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${kit.url}${route}`, {
    method,
    headers: { origin: new URL(kit.url).origin, ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

async function signIn(token: string): Promise<{ id: string; secret: string }> {
  const minted = await send<{ id: string; secret: string }>("POST", "/api/browser-sessions", { authorization: `Bearer ${token}` }, { userAgent: "vitest" });
  expect(minted.status, JSON.stringify(minted.body)).toBe(201);
  return minted.body;
}

const cookieOf = (secret: string) => ({ cookie: `berth_browser=${encodeURIComponent(secret)}` });

function browserSocket(headers: Record<string, string>, auth?: { token: string }): Promise<Socket> {
  const socket = connect(kit.url, { transports: ["websocket"], forceNew: true, reconnection: false, extraHeaders: { origin: new URL(kit.url).origin, ...headers }, ...(auth ? { auth } : {}) });
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", (error) => {
      socket.close();
      reject(error);
    });
  });
}

async function callerOfRun(runId: string): Promise<{ run: string | null; calls: string[] }> {
  const detail = await kit.api<{ run: { caller: string | null }; toolCalls: { caller: string }[] }>("GET", `/api/runs/${runId}`);
  return { run: detail.body.run.caller, calls: detail.body.toolCalls.map((c) => c.caller) };
}

describe("browser sessions", () => {
  it("only the browser's own cookie makes a browser principal; an API token never does", async () => {
    const { id, secret } = await signIn(devToken);
    const me = await send<Me>("GET", "/api/me", cookieOf(secret));
    expect(me.body).toMatchObject({ name: "dana", credential: "browser", tokenId: id });

    // A token under the cookie's name, under the old cookie's name, or beside a real cookie, is never the browser.
    expect((await send("GET", "/api/me", { cookie: `berth_browser=${devToken}` })).status).toBe(401);
    expect((await send("GET", "/api/me", { cookie: `berth_token=${devToken}` })).status).toBe(401);
    const both = await send<Me>("GET", "/api/me", { authorization: `Bearer ${devToken}`, ...cookieOf(secret) });
    expect(both.body.credential).toBe("token");
    // A browser session cannot mint another (its expiry is its own).
    expect((await send("POST", "/api/browser-sessions", cookieOf(secret), {})).status).toBe(403);
  });

  it("the owner's ▶ Run at the defaults runs at once, recorded as browser, with its run id sent as it starts", async () => {
    const { secret } = await signIn(devToken);
    const socket = await browserSocket(cookieOf(secret));
    const started = new Promise<{ callId: string; runId: string; sessionId: string }>((resolve) => socket.once("run:started", resolve));
    const result = await emitWithAck<Result>(socket, "tool:call", { sessionId: devSession, tool: "run_script", args: { interpreter: "python3", script: "hello.py" }, callId: "click-1" });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(await started).toEqual({ callId: "click-1", runId: result.runId, sessionId: devSession });
    expect(await callerOfRun(result.runId!)).toEqual({ run: "browser", calls: ["browser"] });
    const receipt = await kit.api<{ body: { run: { caller: string; userId: string } } }>("GET", `/api/receipts/${result.receiptId}`);
    expect(receipt.body.body.run).toMatchObject({ caller: "browser" });
    const verified = await kit.api<{ valid: boolean }>("POST", "/api/receipts/verify", { receipt: receipt.body });
    expect(verified.body.valid).toBe(true);
    socket.close();
  });

  it("an API token with the cookie's name, any header, or over socket.io is a script: its Run parks at default", async () => {
    const script = { interpreter: "python3", script: "hello.py", args: ["as-a-script"] };
    const rest = await send<Parked>("POST", `/api/sessions/${devSession}/tools/run_script`, {
      authorization: `Bearer ${devToken}`,
      cookie: `berth_browser=${devToken}; berth_token=${devToken}`,
      "x-berth-caller": "browser",
      "x-forwarded-user": "dana",
      "sec-fetch-site": "same-origin",
      "user-agent": "Mozilla/5.0",
    }, { args: script });
    expect(rest.status).toBe(202);
    expect(rest.body.status).toBe("parked");

    const tokenSocket = await browserSocket({ cookie: `berth_browser=${devToken}` }, { token: devToken });
    const parked = await emitWithAck<Parked>(tokenSocket, "tool:call", { sessionId: devSession, tool: "run_script", args: { ...script, args: ["over-socket"] } });
    expect(parked.status).toBe("parked");
    tokenSocket.close();
    await expect(browserSocket({ cookie: `berth_browser=${devToken}` })).rejects.toThrow(/unauthorized/);

    const calls = await kit.api<{ approvals: { id: string; sessionId: string; requestedBy: string; status: string }[] }>("GET", "/api/approvals?status=pending");
    const mine = calls.body.approvals.filter((a) => a.sessionId === devSession);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    // Someone else's browser in dana's session is governed too (it is not their session).
    const admin = await signIn(TEST_ADMIN_TOKEN);
    const adminSocket = await browserSocket(cookieOf(admin.secret));
    const notOwner = await emitWithAck<Parked>(adminSocket, "tool:call", { sessionId: devSession, tool: "run_script", args: { ...script, args: ["admin"] } });
    expect(notOwner.status).toBe("parked");
    adminSocket.close();
  });

  it("signing out ends the browser's sockets at once; sessions are listed (an admin sees everyone's) and revoked", async () => {
    const { id, secret } = await signIn(devToken);
    const socket = await browserSocket(cookieOf(secret));
    const gone = new Promise<string>((resolve) => socket.once("disconnect", resolve));
    const listed = await send<{ sessions: { id: string; userName: string; current: boolean; userAgent: string }[] }>("GET", "/api/browser-sessions", cookieOf(secret));
    expect(listed.body.sessions.find((s) => s.id === id)).toMatchObject({ current: true, userName: "dana", userAgent: "vitest" });
    expect(listed.body.sessions.every((s) => s.userName === "dana")).toBe(true);
    const all = await kit.api<{ sessions: { id: string; userName: string }[] }>("GET", "/api/browser-sessions");
    expect(all.body.sessions.some((s) => s.id === id)).toBe(true);

    expect((await send("DELETE", "/api/browser-sessions/current", cookieOf(secret))).status).toBe(204);
    expect(await gone).toBe("io server disconnect");
    expect((await send("GET", "/api/me", cookieOf(secret))).status).toBe(401);

    // Another user's sign-in is not found to dana; an admin revokes it.
    const admin = await signIn(TEST_ADMIN_TOKEN);
    expect((await send("DELETE", `/api/browser-sessions/${admin.id}`, { authorization: `Bearer ${devToken}` })).status).toBe(404);
    const other = await signIn(devToken);
    const revoked = await kit.api<{ revokedAt: string | null }>("DELETE", `/api/browser-sessions/${other.id}`);
    expect(revoked.body.revokedAt).not.toBeNull();
    expect((await send("GET", "/api/me", cookieOf(other.secret))).status).toBe(401);

    // Revoking the token a browser signed in with signs that browser out too, its sockets at once.
    const user = (await send<Me>("GET", "/api/me", { authorization: `Bearer ${devToken}` })).body;
    const spare = (await kit.api<{ token: string; id: string }>("POST", "/api/tokens", { userId: user.userId, name: "laptop" })).body;
    const laptop = await signIn(spare.token);
    const laptopSocket = await browserSocket(cookieOf(laptop.secret));
    const ended = new Promise<string>((resolve) => laptopSocket.once("disconnect", resolve));
    expect((await kit.api("DELETE", `/api/tokens/${spare.id}`)).status).toBeLessThan(300);
    expect(await ended).toBe("io server disconnect");
    expect((await send("GET", "/api/me", cookieOf(laptop.secret))).status).toBe(401);
  });

  it("a session's owner changes its autonomy up to what their role allows, recorded and announced", async () => {
    const { secret } = await signIn(devToken);
    const socket = await browserSocket(cookieOf(secret));
    await emitWithAck(socket, "session:join", { sessionId: devSession });
    const yolo = await send<{ error: { message: string } }>("PATCH", `/api/sessions/${devSession}`, cookieOf(secret), { autonomy: "yolo" });
    expect(yolo.status).toBe(403);
    expect(yolo.body.error.message).toMatch(/autonomy: a developer may set at most trusted \(got yolo\)/);
    // The same ceiling at creation: a developer cannot start at a level they could not switch to.
    const created = await send<{ error: { message: string } }>("POST", "/api/sessions", cookieOf(secret), { autonomy: "yolo" });
    expect(created.status).toBe(403);
    expect(created.body.error.message).toMatch(/autonomy: a developer may set at most trusted \(got yolo\)/);
    const bad = await send<{ error: { message: string } }>("PATCH", `/api/sessions/${devSession}`, cookieOf(secret), { autonomy: "reckless" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/autonomy/);

    const announced = new Promise<{ autonomy?: string; autonomyChangedBy?: string }>((resolve) => socket.once("session:status", resolve));
    const trusted = await send<{ autonomy: string; autonomyChangedBy: string; autonomyChangedAt: string }>("PATCH", `/api/sessions/${devSession}`, cookieOf(secret), { autonomy: "trusted" });
    expect(trusted.status).toBe(200);
    expect(trusted.body).toMatchObject({ autonomy: "trusted", autonomyChangedBy: "dana" });
    expect(await announced).toMatchObject({ autonomy: "trusted", autonomyChangedBy: "dana" });
    // An operator (here the admin) may set any level in anyone's session.
    expect((await kit.api<{ autonomy: string }>("PATCH", `/api/sessions/${devSession}`, { autonomy: "default" })).body).toMatchObject({ autonomy: "default", autonomyChangedBy: "admin" });
    socket.close();
  });

  it("whoever asked cancels their parked call; the waiting caller gets a cancelled result", async () => {
    const waiting = kit.tool<Result>(devSession, "run_script", { interpreter: "python3", script: "hello.py", args: ["to-cancel"] }, { wait: 60_000, token: devToken });
    let approval: { id: string; sha256: string } | undefined;
    for (let i = 0; i < 100 && !approval; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const pending = await kit.api<{ approvals: { id: string; sha256: string; sessionId: string; text: string }[] }>("GET", "/api/approvals?status=pending");
      approval = pending.body.approvals.find((a) => a.sessionId === devSession && a.text.includes("to-cancel"));
    }
    expect(approval).toBeDefined();
    // The admin did not ask for it: they may see it but not cancel it (they would deny it instead).
    const notTheirs = await kit.api("POST", `/api/approvals/${approval!.id}`, { decision: "cancel", sha256: approval!.sha256 });
    expect(notTheirs.status).toBe(403);
    const wrongHash = await kit.api("POST", `/api/approvals/${approval!.id}`, { decision: "cancel", sha256: "0".repeat(64) }, devToken);
    expect(wrongHash.status).toBe(409);
    const cancelled = await kit.api<{ status: string; decidedBy: string; cause: string }>("POST", `/api/approvals/${approval!.id}`, { decision: "cancel", sha256: approval!.sha256 }, devToken);
    expect(cancelled.body).toMatchObject({ status: "cancelled", decidedBy: "dana" });
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: false, error: { code: "cancelled" } });
  });

  it("policy rules still apply to people, by target; a shell rule never matches everything by accident", async () => {
    const blank = await kit.api<{ error: { message: string } }>("POST", "/api/policy-rules", { tool: "bash", commandPrefix: " ", effect: "deny", mustMatch: ["git push"] });
    expect(blank.status).toBe(400);
    expect(blank.body.error.message).toMatch(/matchAll: true/);
    const rule = await kit.api<{ id: string; appliesTo: string }>("POST", "/api/policy-rules", { tool: "bash", commandPrefix: "git push", effect: "deny", appliesTo: "people", mustMatch: ["git push origin main"] });
    expect(rule.status).toBe(201);
    try {
      const listed = await kit.api<{ rules: { id: string; appliesTo: string }[] }>("GET", "/api/policy-rules");
      expect(listed.body.rules.find((r) => r.id === rule.body.id)?.appliesTo).toBe("people");
      const { secret } = await signIn(devToken);
      const socket = await browserSocket(cookieOf(secret));
      const denied = await emitWithAck<Result & { details?: { stage?: string } }>(socket, "tool:call", { sessionId: devSession, tool: "bash", args: { command: "git push origin main" } });
      expect(denied).toMatchObject({ ok: false, error: { code: "denied" } });
      expect(denied.error!.message).toMatch(/for people/);
      socket.close();
    } finally {
      await kit.api("DELETE", `/api/policy-rules/${rule.body.id}`);
    }
  });
});
