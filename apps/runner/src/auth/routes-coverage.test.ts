import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PERMISSIONS, type Rule } from "./authorize";

const SRC = path.resolve(import.meta.dirname, "..");

/** Answered without asking the table, and why. */
const EXEMPT: Record<string, string> = {
  "GET /healthz": "public liveness probe",
  "GET /api/shared/:token": "public: the share link's token is the credential",
  "GET /api/receipts/public-key": "public: anyone verifies receipts offline",
  "GET /api/receipts/keys": "public: every runner's keys, so anyone verifies any runner's receipts",
  "socket session:leave": "leaving a room needs no right",
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith(".ts") && !entry.name.includes(".test.") ? [file] : [];
  });
}

/** Every REST route and client → server socket event the runner's code registers. */
function registered(): Set<string> {
  const found = new Set<string>();
  for (const file of sources(SRC)) {
    const text = fs.readFileSync(file, "utf8");
    for (const [, method, route] of text.matchAll(
      /\bapp\.(get|post|put|patch|delete|all)(?:<[^>]*>)?\(\s*"([^"]+)"/g,
    )) {
      found.add(method === "all" ? route! : `${method!.toUpperCase()} ${route}`);
    }
    // Socket handlers are registered through an `on(event, handler)` helper that acks; `x.on(...)` are listeners.
    for (const [, event] of text.matchAll(/(?<![.\w])on\("([a-z-]+:[a-z-]+)"/g)) found.add(`socket ${event}`);
  }
  return found;
}

/** What the table says asks it (a route's "(scope: …)" note dropped). */
function inTable(): Set<string> {
  return new Set(
    Object.values(PERMISSIONS).flatMap((actions) =>
      Object.values(actions as Record<string, Rule>).flatMap((rule) => rule.by.map((by) => by.replace(/ \(.*\)$/, ""))),
    ),
  );
}

describe("the Roles table covers the runner's surface", () => {
  it("names every route and socket event the runner registers (add a row or an exemption for a new one)", () => {
    const table = inTable();
    const missing = [...registered()].filter((route) => !table.has(route) && !(route in EXEMPT));
    expect(missing).toEqual([]);
  });

  it("names nothing the runner does not register (a stale row)", () => {
    const code = registered();
    expect([...inTable()].filter((route) => !code.has(route))).toEqual([]);
    expect(Object.keys(EXEMPT).filter((route) => !code.has(route))).toEqual([]);
  });
});
