import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../../testing/runner-test-kit";
import { workspaceRelative } from "./download-routes";

let kit: TestRunner;
let developer: string;
let sessionId: string;
const unpacked = fs.mkdtempSync(path.join(os.tmpdir(), "berth-download-"));

beforeAll(async () => {
  kit = await startTestRunner();
  const user = await kit.api<{ id: string }>("POST", "/api/users", { name: "dev-download", role: "developer" });
  developer = (await kit.api<{ token: string }>("POST", "/api/tokens", { userId: user.body.id })).body.token;
  sessionId = await kit.createSession({ autonomy: "trusted", token: developer });
  // Some bytes of every value and a file nested two folders deep, plus a link that leads out of /workspace.
  const made = await kit.tool<{ ok: boolean }>(
    sessionId,
    "bash",
    { action: "exec", command: "mkdir -p proj/src/deep && printf 'hello\\n' > proj/src/deep/note.txt && head -c 300000 /dev/urandom > proj/blob.bin && sha256sum proj/blob.bin > proj.sum && ln -s /etc escape" },
    { token: developer },
  );
  expect(made.body.ok).toBe(true);
});
afterAll(async () => {
  fs.rmSync(unpacked, { recursive: true, force: true });
  await kit?.close();
});

const download = (query: string, token = developer) =>
  fetch(`${kit.url}/api/sessions/${sessionId}/download?${query}`, { headers: { authorization: `Bearer ${token}` } });

describe("GET /api/sessions/:id/download", () => {
  it("streams a folder as .tar.gz that unpacks to the same files", async () => {
    const response = await download("path=proj&format=tar.gz");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/gzip");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="proj.tar.gz"');
    const archive = path.join(unpacked, "proj.tar.gz");
    fs.writeFileSync(archive, Buffer.from(await response.arrayBuffer()));
    execFileSync("tar", ["-xzf", archive, "-C", unpacked]);
    expect(fs.readFileSync(path.join(unpacked, "proj/src/deep/note.txt"), "utf8")).toBe("hello\n");
    const sum = await kit.tool<{ details: { stdout: string } }>(sessionId, "bash", { action: "exec", command: "cat proj.sum" }, { token: developer });
    const local = execFileSync("sha256sum", ["proj/blob.bin"], { cwd: unpacked, encoding: "utf8" });
    expect(local).toBe(sum.body.details.stdout);
  });

  it("refuses a path outside the workspace, a link leading out, a missing folder and a bad format", async () => {
    for (const [query, status, message] of [
      ["path=../etc", 400, /outside \/workspace/],
      ["path=%2Fetc", 400, /outside \/workspace/],
      ["path=escape", 400, /resolves outside \/workspace/],
      ["path=nope", 404, /no folder "nope"/],
      ["path=proj&format=zip", 400, /format/],
      ["", 400, /path/],
    ] as const) {
      const response = await download(query);
      expect(response.status, query).toBe(status);
      expect(((await response.json()) as { error: { message: string } }).error.message, query).toMatch(message);
    }
  });

  it("is the owner's only: an admin is refused, a viewer does not see the session", async () => {
    expect((await download("path=proj", TEST_ADMIN_TOKEN)).status).toBe(403);
    const user = await kit.api<{ id: string }>("POST", "/api/users", { name: "viewer-download", role: "viewer" });
    const viewer = (await kit.api<{ token: string }>("POST", "/api/tokens", { userId: user.body.id })).body.token;
    expect((await download("path=proj", viewer)).status).toBe(403);
  });

  it("maps paths onto the workspace", () => {
    expect(workspaceRelative("proj/src")).toBe("./proj/src");
    expect(workspaceRelative("/workspace/proj")).toBe("./proj");
    expect(workspaceRelative("/workspace")).toBe(".");
    expect(() => workspaceRelative("/workspace-other")).toThrow(/outside \/workspace/);
  });
});
