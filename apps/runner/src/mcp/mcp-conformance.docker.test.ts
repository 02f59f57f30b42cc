import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, unmodified) against a real
 * runner's `/mcp/<sessionId>`. It runs under testing/conformance/register.mjs: a load hook that gives its
 * bundle the `fs.globSync` Node 20 lacks, and the bearer token on requests to the runner.
 *
 * Server scenarios that apply to a tools-only server, each of which must report no FAILURE:
 */
const APPLICABLE = [
  "server-initialize",
  "ping",
  "tools-list",
  // Needs the Host/Origin guard in front of /mcp (apps/runner/src/http/request-guard.ts).
  "dns-rebinding-protection",
  // SEP-1699. Its only verdicts are warnings here, by design: its POST says `mcp-protocol-version:
  // 2025-03-26`, and the SDK sends the priming event (an id with empty data) only to 2025-11-25 clients,
  // since older ones cannot read empty data (a 2025-11-25 client gets it: create-session-mcp-handler.test.ts);
  // and a stateless endpoint has no session id to resume with. It must still stream with event ids.
  "server-sse-polling",
];
/** Scenarios whose checks here are warnings and information only (see above): no SUCCESS to expect. */
const WARNINGS_ONLY = new Set(["server-sse-polling"]);

/**
 * The rest, and why they do not apply (also in packages/mcp/README.md). Berth's surface is the session's
 * own tools: it declares only the `tools` capability, and its tools are the workspace's, not the suite's
 * fixtures (`test_simple_text`, `test_image_content`, …), which exist only in the suite's reference server.
 */
const NOT_APPLICABLE: Record<string, string> = {
  "logging-set-level": "no `logging` capability declared (tools only)",
  "completion-complete": "no `completions` capability (no prompts or resource templates to complete)",
  "tools-call-simple-text": "calls the fixture tool test_simple_text",
  "tools-call-image": "calls the fixture tool test_image_content (upstream images are passed through: mcp-fidelity.docker.test.ts)",
  "tools-call-audio": "calls the fixture tool test_audio_content",
  "tools-call-embedded-resource": "calls the fixture tool test_embedded_resource",
  "tools-call-mixed-content": "calls the fixture tool test_multiple_content_types",
  "tools-call-with-logging": "calls the fixture tool test_tool_with_logging (no logging capability)",
  "tools-call-error": "calls the fixture tool test_error_handling (Berth's own failures are isError results: mcp-server.docker.test.ts)",
  "tools-call-with-progress": "calls the fixture tool test_tool_with_progress (Berth's progress: mcp-cancel-progress.docker.test.ts)",
  "tools-call-sampling": "calls a fixture tool that asks the client for sampling; Berth never sends server-to-client requests",
  "tools-call-elicitation": "calls a fixture tool that asks the client for elicitation; Berth never sends server-to-client requests",
  "elicitation-sep1034-defaults": "elicitation fixture tool; Berth never elicits",
  "elicitation-sep1330-enums": "elicitation fixture tool; Berth never elicits",
  "json-schema-2020-12": "lists the fixture tool json_schema_2020_12_tool",
  "server-sse-multiple-streams": "needs an MCP session id: the endpoint is stateless (each POST stands alone), which the scenario reports as a warning",
  "resources-list": "no `resources` capability",
  "resources-read-text": "no `resources` capability",
  "resources-read-binary": "no `resources` capability",
  "resources-templates-read": "no `resources` capability",
  "resources-subscribe": "no `resources` capability",
  "resources-unsubscribe": "no `resources` capability",
  "prompts-list": "no `prompts` capability",
  "prompts-get-simple": "no `prompts` capability",
  "prompts-get-with-args": "no `prompts` capability",
  "prompts-get-embedded-resource": "no `prompts` capability",
  "prompts-get-with-image": "no `prompts` capability",
};

const SUITE = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js");
const PRELOAD = path.resolve(import.meta.dirname, "../testing/conformance/register.mjs");

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  details?: { eventId?: string };
}

let kit: TestRunner;
let session: string;
let outDir: string;

function runSuite(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Async: the runner answering the suite lives in this process.
    const child = spawn(process.execPath, ["--import", PRELOAD, SUITE, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function checksUnder(dir: string): Check[] {
  const found: Check[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === "checks.json") found.push(...(JSON.parse(fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8")) as Check[]));
  }
  return found;
}

beforeAll(async () => {
  kit = await startTestRunner();
  session = await kit.createSession({ autonomy: "default" });
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-conformance-"));
});
afterAll(async () => {
  await kit?.close();
  if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
});

describe("the official MCP conformance suite against /mcp/:sessionId", () => {
  it("knows every server scenario the suite has: each is run here or listed with why it does not apply", async () => {
    const listed = await runSuite(["list", "--server"]);
    expect(listed.code, listed.stderr).toBe(0);
    const scenarios = [...listed.stdout.matchAll(/^\s*- (\S+)/gm)].map((m) => m[1]!);
    expect(scenarios.length).toBeGreaterThan(20);
    const unaccounted = scenarios.filter((s) => !APPLICABLE.includes(s) && !(s in NOT_APPLICABLE));
    expect(unaccounted).toEqual([]);
  });

  it.each(APPLICABLE)("%s passes (no FAILURE check)", async (scenario) => {
    const dir = path.join(outDir, scenario);
    const url = `${kit.url}/mcp/${session}`;
    const run = await runSuite(["server", "--url", url, "--scenario", scenario, "-o", dir], {
      BERTH_CONFORMANCE_ORIGIN: new URL(kit.url).origin,
      BERTH_CONFORMANCE_TOKEN: TEST_ADMIN_TOKEN,
    });
    const checks = checksUnder(dir);
    expect(checks.length, `${scenario}: no checks written\n${run.stdout}\n${run.stderr}`).toBeGreaterThan(0);
    const failures = checks.filter((c) => c.status === "FAILURE").map((c) => `${c.id}: ${c.errorMessage ?? ""}`);
    expect(failures, `${scenario}\n${run.stdout.slice(-3000)}`).toEqual([]);
    const warnings = checks.filter((c) => c.status === "WARNING").map((c) => `${c.id}: ${c.errorMessage ?? ""}`);
    if (warnings.length) console.info(`conformance ${scenario} warnings: ${warnings.join("; ")}`);
    if (WARNINGS_ONLY.has(scenario)) {
      // The tools/call answer came on an SSE stream whose events carry ids (what a client resumes with).
      expect(checks.some((c) => c.id === "incoming-sse-event" && c.details?.eventId)).toBe(true);
    } else {
      expect(checks.some((c) => c.status === "SUCCESS")).toBe(true);
    }
  });
});
