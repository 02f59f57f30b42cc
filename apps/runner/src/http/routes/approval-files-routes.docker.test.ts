import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../../testing/runner-test-kit";
import { boundFilesOfText } from "./approval-files-routes";

type Parked = { status: "parked"; approvalId: string; text: string; sha256: string };
type Files = { files: { path: string; bound: string | null; current: string | null; content?: string; truncated: boolean; note?: string }[] };

let kit: TestRunner;
let session: string;
let rule: string;

beforeAll(async () => {
  kit = await startTestRunner();
  session = await kit.createSession({ autonomy: "default" });
  // Every write_file asks, so it parks and its card needs a diff.
  rule = (await kit.api<{ id: string }>("POST", "/api/policy-rules", { tool: "write_file", effect: "ask" })).body.id;
});
afterAll(async () => {
  await kit?.api("DELETE", `/api/policy-rules/${rule}`);
  await kit?.close();
});

describe("GET /api/approvals/:id/files", () => {
  it("gives a parked write_file's target as it is now, with the sha256 the approval binds, and says when it changed since", async () => {
    expect((await kit.tool(session, "bash", { action: "exec", command: "printf 'one\\ntwo\\nthree\\n' > notes.txt" })).body).toMatchObject({ ok: true });
    const parked = await kit.tool<Parked>(session, "write_file", { path: "notes.txt", content: "one\n2\nthree\n" });
    expect(parked.status).toBe(202);

    const files = await kit.api<Files>("GET", `/api/approvals/${parked.body.approvalId}/files`);
    expect(files.status).toBe(200);
    const [file] = files.body.files;
    expect(file).toMatchObject({ path: "notes.txt", content: "one\ntwo\nthree\n", truncated: false });
    expect(file!.bound).toMatch(/^[0-9a-f]{64}$/);
    expect(file!.current).toBe(file!.bound);
    expect(parked.body.text).toContain(`file notes.txt sha256=${file!.bound}`);

    // Changed under the parked call: the card is told, so it does not show a diff that would not run.
    await kit.tool(session, "bash", { action: "exec", command: "printf 'other\\n' > notes.txt" });
    const after = (await kit.api<Files>("GET", `/api/approvals/${parked.body.approvalId}/files`)).body.files[0]!;
    expect(after.current).not.toBe(after.bound);
    expect(after.content).toBe("other\n");
  });

  it("a new file is bound as absent and is absent now", async () => {
    const parked = await kit.tool<Parked>(session, "write_file", { path: "fresh/new.txt", content: "hello\n" });
    expect(parked.status).toBe(202);
    const files = await kit.api<Files>("GET", `/api/approvals/${parked.body.approvalId}/files`);
    expect(files.body.files).toEqual([{ path: "fresh/new.txt", bound: null, current: null, truncated: false }]);
  });

  it("is hidden from a developer who does not own the session, and 404 for an unknown approval", async () => {
    const parked = await kit.tool<Parked>(session, "write_file", { path: "x.txt", content: "x" });
    const user = await kit.api<{ id: string }>("POST", "/api/users", { name: "dev-other-files", role: "developer" });
    const other = (await kit.api<{ token: string }>("POST", "/api/tokens", { userId: user.body.id })).body.token;
    expect((await kit.api("GET", `/api/approvals/${parked.body.approvalId}/files`, undefined, other)).status).toBe(404);
    expect((await kit.api("GET", "/api/approvals/apr_nope/files")).status).toBe(404);
  });

  it("reads the bound files off an approval text", () => {
    expect(boundFilesOfText(`write_file {"path":"a"}\nfile a sha256=${"0".repeat(64)} bytes=3\nfile b absent`)).toEqual([
      { path: "a", sha256: "0".repeat(64) },
      { path: "b", sha256: null },
    ]);
  });
});
