import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import type { ChildRunner } from "../../testing/child-runner";
import { TEST_ADMIN_TOKEN } from "../../testing/runner-test-kit";
import { newSession } from "../chaos-kit";
import type { ChaosFigure, ChaosScale } from "../chaos-scale";
import { EVENT_PAYLOADS, ROUTE_BODIES, TOOL_ARGS } from "../fuzz-surface";
import { mutatedFor, type Mutation } from "../zod-arbitrary";

/** apps/runner/src, whose sources registeredSurface() reads. */
const SRC = path.resolve(import.meta.dirname, "../..");

export async function fuzzEverything(runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
  const { routes, events } = registeredSurface();
  const random = seeded(0xbe7e);
  // A live session, so bodies that pass validation reach the tools and the sandbox behind them.
  const live = await newSession(runner);
  const cases = fc.sample(restCase(routes, live), { seed: 0xbe7e, numRuns: scale.fuzzCases });
  let fiveXx = 0;
  let badShape = 0;
  let unanswered = 0;
  const examples: string[] = [];
  const mutations = new Map<string, number>();
  for (const [i, generated] of cases.entries()) {
    // One case in four is the seeded hostile generator's (any JSON, hostile keys), the rest come from the schemas.
    const hostile = i % 4 === 3;
    const { method, route, url } = hostile ? hostileRoute(routes[i % routes.length]!, random) : generated;
    const body = hostile
      ? method === "GET" || method === "DELETE"
        ? undefined
        : hostileValue(random, 3)
      : generated.body;
    if (!hostile) mutations.set(generated.mutation, (mutations.get(generated.mutation) ?? 0) + 1);
    const query =
      random() < 0.3 ? `?${encodeHostile(hostileString(random))}=${encodeHostile(hostileString(random))}` : "";
    const response = await fetch(`${runner.url}${url}${query}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: random() < 0.05 ? "{not json" : JSON.stringify(body) }),
    }).catch((error: Error) => ({ status: 599, text: async () => error.message }));
    const text = await response.text();
    if (response.status >= 500) {
      fiveXx++;
      if (examples.length < 3) examples.push(`${method} ${route} → ${response.status} ${text.slice(0, 80)}`);
    }
    if (response.status >= 400 && !isErrorShape(text)) {
      badShape++;
      if (examples.length < 3) examples.push(`${method} ${route} → ${response.status} ${text.slice(0, 60)}`);
    }
  }
  let socket = await runner.socket();
  const socketCases = Math.max(events.length, Math.floor(scale.fuzzCases / 3));
  const payloads = fc.sample(socketCase(events, live), { seed: 0xbe7f, numRuns: socketCases });
  for (const [i, generated] of payloads.entries()) {
    const hostile = i % 4 === 3;
    const event = hostile ? events[i % events.length]! : generated.event;
    const payload = hostile ? hostileValue(random, 3) : generated.payload;
    const withPayload = random() < 0.9;
    const answer = await new Promise<unknown[] | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), 5_000);
      const done = (...args: unknown[]) => {
        clearTimeout(timer);
        resolve(args);
      };
      if (withPayload) socket.emit(event, payload, done);
      else socket.emit(event, done);
    });
    if (!answer) {
      unanswered++;
      if (examples.length < 3) examples.push(`socket ${event}: no ack`);
    } else if (answer[0] !== null && answer[0] !== undefined && !isAckError(answer[0])) {
      badShape++;
      if (examples.length < 3) examples.push(`socket ${event}: ${JSON.stringify(answer[0]).slice(0, 80)}`);
    }
    if (!socket.connected) {
      socket.disconnect();
      socket = await runner.socket();
    }
  }
  socket.disconnect();
  const { body } = await runner.api<{ sessions: { id: string }[] }>("GET", "/api/sessions");
  for (const s of body.sessions ?? []) await runner.api("DELETE", `/api/sessions/${s.id}`);
  const note = examples.length ? ` (${examples.join("; ")})` : "";
  const mix = [...mutations].map(([m, n]) => `${m} ${n}`).join(", ");
  return [
    {
      part: "fuzz",
      figure: `5xx in ${scale.fuzzCases} cases over ${routes.length} routes`,
      value: `${fiveXx}${fiveXx ? note : ""}`,
      ok: fiveXx === 0,
    },
    {
      part: "fuzz",
      figure: "errors not {error:{code,message}} (REST) / {code,message} (ack)",
      value: `${badShape}${badShape ? note : ""}`,
      ok: badShape === 0,
    },
    {
      part: "fuzz",
      figure: `socket events never answered in ${socketCases} cases over ${events.length} events`,
      value: String(unanswered),
      ok: unanswered === 0,
    },
    { part: "fuzz", figure: "REST cases from the schemas, by mutation", value: mix, ok: true },
  ];
}

/** A route's params: mostly hostile; a session route's `:id` is the live session where that harms nothing. */
function paramArbitrary(method: string, route: string, name: string, live: string): fc.Arbitrary<string> {
  const hostile = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ maxLength: 12 }));
  const destructive = method === "DELETE" || route.endsWith("/restart");
  if (name === "tool") return fc.oneof(fc.constantFrom(...Object.keys(TOOL_ARGS)), hostile);
  if (name === "id" && route.startsWith("/api/sessions/") && !destructive) return fc.oneof(fc.constant(live), hostile);
  return hostile;
}

/** One REST case: a registered route, its params, and a body from its schema broken one way (zod-arbitrary.ts). */
function restCase(
  routes: [string, string][],
  live: string,
): fc.Arbitrary<{ method: string; route: string; url: string; body: unknown; mutation: string }> {
  return fc.oneof(
    ...routes.map(([method, route]) => {
      const names = [...route.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      const params = fc.tuple(...names.map((n) => paramArbitrary(method, route, n, live)));
      const key = `${method} ${route}`;
      const schema = ROUTE_BODIES[key];
      const bodyless = method === "GET" || method === "DELETE";
      return params.chain((values) => {
        const url = names.reduce((u, n, i) => u.replace(`:${n}`, encodeHostile(values[i]!)), route);
        const tool = names.includes("tool") ? values[names.indexOf("tool")]! : "";
        const bodies: fc.Arbitrary<{ mutation: Mutation; value: unknown }> = bodyless
          ? fc.constant({ mutation: "none" as const, value: undefined })
          : Object.hasOwn(TOOL_ARGS, tool) // a hostile `:tool` may be "constructor"
            ? mutatedFor(TOOL_ARGS[tool]!).map(({ mutation, value }) => ({ mutation, value: { args: value } }))
            : schema
              ? mutatedFor(schema)
              : fc.jsonValue({ maxDepth: 3 }).map((value) => ({ mutation: "none" as const, value }));
        return bodies.map(({ mutation, value }) => ({
          method,
          route,
          url,
          body: value,
          mutation: bodyless ? "no body" : mutation,
        }));
      });
    }),
  );
}

/** One socket case: an event and its payload from the event's schema, broken one way; tool:call's args from the tool's. */
function socketCase(events: string[], live: string): fc.Arbitrary<{ event: string; payload: unknown }> {
  return fc.oneof(
    ...events.map((event) => {
      const schema = EVENT_PAYLOADS[event];
      if (event === "tool:call") {
        return fc.tuple(fc.constantFrom(...Object.keys(TOOL_ARGS)), fc.boolean()).chain(([tool, own]) =>
          mutatedFor(TOOL_ARGS[tool]!).map(({ value }) => ({
            event,
            payload: { sessionId: own ? live : "ses_nope", tool, args: value },
          })),
        );
      }
      const payloads = schema ? mutatedFor(schema).map((m) => m.value) : fc.jsonValue({ maxDepth: 3 });
      return payloads.map((payload) => ({ event, payload }));
    }),
  );
}

/** The seeded generator's case for a route: hostile params, no schema. */
function hostileRoute(
  [method, route]: [string, string],
  random: () => number,
): { method: string; route: string; url: string } {
  return { method, route, url: route.replace(/:(\w+)/g, () => encodeHostile(hostileString(random))) };
}

/** Every REST route and client → server socket event the runner's sources register (as routes-coverage reads them). */
export function registeredSurface(): { routes: [string, string][]; events: string[] } {
  const routes = new Map<string, [string, string]>();
  const events = new Set<string>();
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(file);
      return entry.name.endsWith(".ts") && !entry.name.includes(".test.") ? [file] : [];
    });
  for (const file of walk(SRC)) {
    const text = fs.readFileSync(file, "utf8");
    for (const [, method, route] of text.matchAll(/\bapp\.(get|post|put|patch|delete)(?:<[^>]*>)?\(\s*"([^"]+)"/g)) {
      routes.set(`${method} ${route}`, [method!.toUpperCase(), route!]);
    }
    for (const [, event] of text.matchAll(/(?<![.\w])on\("([a-z-]+:[a-z-]+)"/g)) events.add(event!);
  }
  return { routes: [...routes.values()].sort(), events: [...events].sort() };
}

function isErrorShape(text: string): boolean {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    return typeof body.error?.code === "string" && typeof body.error.message === "string";
  } catch {
    return false;
  }
}

function isAckError(value: unknown): boolean {
  const v = value as { code?: unknown; message?: unknown } | null;
  return typeof v?.code === "string" && typeof v.message === "string";
}

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed from the seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE_STRINGS = [
  "",
  " ",
  "\ud800",
  "a\udfffb",
  "../../etc/passwd",
  "%00",
  "\u0000",
  "ses_",
  "run_x",
  "💥".repeat(50),
  "x".repeat(70_000),
  "<script>",
  "null",
  "-1",
  "1e309",
  "__proto__",
  "constructor",
];

function hostileString(random: () => number): string {
  if (random() < 0.7) return HOSTILE_STRINGS[Math.floor(random() * HOSTILE_STRINGS.length)]!;
  const length = Math.floor(random() * 40);
  return Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0xffff))).join("");
}

/** Percent-encoded; a lone surrogate (which encodeURIComponent refuses) goes as the bytes of one, invalid UTF-8. */
function encodeHostile(text: string): string {
  return Array.from(text, (ch) => {
    try {
      return encodeURIComponent(ch);
    } catch {
      return "%ED%A0%80";
    }
  }).join("");
}

/** Any JSON value, biased to what schemas refuse: wrong types, lone surrogates, huge numbers, deep nesting. */
function hostileValue(random: () => number, depth: number): unknown {
  const r = random();
  if (depth <= 0 || r < 0.3) {
    const pick = Math.floor(random() * 7);
    return [null, true, -1, 1e308, 2 ** 53 + 1, hostileString(random), 0.5][pick];
  }
  if (r < 0.5) return Array.from({ length: Math.floor(random() * 4) }, () => hostileValue(random, depth - 1));
  const keys = [
    "args",
    "name",
    "sessionId",
    "runId",
    "processId",
    "offset",
    "path",
    "content",
    "command",
    "action",
    "autonomy",
    "role",
    "token",
    "env",
    "stream",
    "id",
    hostileString(random),
  ];
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 5); i > 0; i--)
    object[keys[Math.floor(random() * keys.length)]!] = hostileValue(random, depth - 1);
  return object;
}
