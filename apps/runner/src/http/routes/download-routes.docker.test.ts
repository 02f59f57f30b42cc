import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../../testing/runner-test-kit";
import { workspaceRelative } from "./download-routes";

/** A folder much larger than what a paused download may hold in flight. */
const BIG_BYTES = 96 * 1024 * 1024;
/**
 * Read from disk by tar but not yet by the client, at most: the credit window (DOWNLOAD_WINDOW_BYTES, 6 MiB)
 * and the runner's own buffer, the pipes and gzip's, and loopback's socket buffers, which grow under load: measured
 * 23–44 MiB with a 12 MiB window on a loaded machine (once over an earlier 40 MiB bound). Half the folder is the
 * bound: before the gate tar read the whole folder (98.5 MB in flight).
 */
const IN_FLIGHT_BOUND = BIG_BYTES / 2;

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
    {
      action: "exec",
      command:
        "mkdir -p proj/src/deep big && printf 'hello\\n' > proj/src/deep/note.txt && head -c 300000 /dev/urandom > proj/blob.bin && sha256sum proj/blob.bin > proj.sum && ln -s /etc escape" +
        ` && head -c ${BIG_BYTES} /dev/urandom > big/random.bin`,
    },
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

/** Bytes the download's tar has read so far (/proc/<pid>/io of the tar in the container), or the whole folder once it is gone. */
async function tarBytesRead(): Promise<number> {
  const found = await kit.tool<{ details: { stdout: string } }>(
    sessionId,
    "bash",
    { action: "exec", command: "for p in /proc/[0-9]*; do [ \"$(cat $p/comm 2>/dev/null)\" = tar ] && sed -n 's/^rchar: //p' $p/io; done; true" },
    { token: developer },
  );
  const rchar = found.body.details.stdout.trim();
  // With -z a second tar relays gzip's output: the one that read the files read the most.
  return rchar ? Math.max(...rchar.split("\n").map(Number)) : BIG_BYTES;
}

/** Downloads proj in `format`, checks its answer's headers, and saves it; the archive's path. */
async function saveProj(format: "tar.gz" | "zip", contentType: string): Promise<string> {
  const response = await download(`path=proj&format=${format}`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe(contentType);
  expect(response.headers.get("content-disposition")).toBe(`attachment; filename="proj.${format}"`);
  const archive = path.join(unpacked, `proj.${format}`);
  fs.writeFileSync(archive, Buffer.from(await response.arrayBuffer()));
  return archive;
}

describe("GET /api/sessions/:id/download", () => {
  it("streams a folder as .tar.gz that unpacks to the same files", async () => {
    const archive = await saveProj("tar.gz", "application/gzip");
    execFileSync("tar", ["-xzf", archive, "-C", unpacked]);
    expect(fs.readFileSync(path.join(unpacked, "proj/src/deep/note.txt"), "utf8")).toBe("hello\n");
    const sum = await kit.tool<{ details: { stdout: string } }>(sessionId, "bash", { action: "exec", command: "cat proj.sum" }, { token: developer });
    const local = execFileSync("sha256sum", ["proj/blob.bin"], { cwd: unpacked, encoding: "utf8" });
    expect(local).toBe(sum.body.details.stdout);
  });

  it("streams a folder as .zip that python3 zipfile and unzip list with the same files and bytes", async () => {
    const archive = await saveProj("zip", "application/zip");
    const listing = execFileSync("unzip", ["-l", archive], { encoding: "utf8" });
    for (const name of ["proj/", "proj/src/deep/note.txt", "proj/blob.bin"]) expect(listing).toContain(name);
    const sums = execFileSync(
      "python3",
      ["-c", "import sys, zipfile, hashlib\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor i in z.infolist():\n  print(hashlib.sha256(z.read(i)).hexdigest(), i.file_size, i.filename)", archive],
      { encoding: "utf8" },
    );
    const sum = await kit.tool<{ details: { stdout: string } }>(sessionId, "bash", { action: "exec", command: "cat proj.sum" }, { token: developer });
    const blobSha = sum.body.details.stdout.split(" ")[0];
    expect(sums).toContain(`${blobSha} 300000 proj/blob.bin`);
    expect(sums).toMatch(/^5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03 6 proj\/src\/deep\/note.txt$/m);
  });

  for (const format of ["zip", "tar.gz"] as const) {
    it(`a reader that stops reading stops tar (${format}): the runner holds a bounded part of a ${BIG_BYTES >> 20} MiB folder, and the rest still arrives`, async () => {
      const response = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get(`${kit.url}/api/sessions/${sessionId}/download?path=big&format=${format}`, { headers: { authorization: `Bearer ${developer}` } }, resolve).on("error", reject),
      );
      expect(response.statusCode).toBe(200);
      let got = 0;
      await new Promise<void>((resolve) => {
        const first = (chunk: Buffer) => {
          got += chunk.length;
          if (got < 2 * 1024 * 1024) return;
          response.off("data", first);
          response.pause();
          resolve();
        };
        response.on("data", first);
      });
      // Until tar has read all it is going to read while nobody reads (two equal samples half a second apart).
      let read = await tarBytesRead();
      for (let previous = -1; read !== previous; ) {
        previous = read;
        await new Promise((resolve) => setTimeout(resolve, 500));
        read = await tarBytesRead();
      }
      const inFlight = read - got;
      console.log(`download ${format}: reader paused at ${got} bytes; tar had read ${read} of ${BIG_BYTES} (${inFlight} bytes in flight, bound ${IN_FLIGHT_BOUND})`);
      expect(inFlight).toBeLessThan(IN_FLIGHT_BOUND);

      const rest = new Promise<number>((resolve, reject) => {
        response.on("data", (chunk: Buffer) => (got += chunk.length));
        response.on("end", () => resolve(got));
        response.on("error", reject);
      });
      response.resume();
      // The whole archive: at least the file's bytes (stored zip; random bytes do not shrink in gzip).
      expect(await rest).toBeGreaterThan(BIG_BYTES);
    }, 300_000);
  }

  it("refuses a path outside the workspace, a link leading out, a missing folder and a bad format", async () => {
    for (const [query, status, message] of [
      ["path=../etc", 400, /outside \/workspace/],
      ["path=%2Fetc", 400, /outside \/workspace/],
      ["path=escape", 400, /resolves outside \/workspace/],
      ["path=nope", 404, /no folder "nope"/],
      ["path=proj&format=rar", 400, /format: must be "tar.gz" or "zip"/],
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

  it("refuses a folder a zip without zip64 cannot hold, naming the limit, and offers .tar.gz", async () => {
    const made = await kit.tool<{ ok: boolean }>(sessionId, "bash", { action: "exec", command: "mkdir -p many && cd many && seq 1 66000 | xargs touch" }, { token: developer });
    expect(made.body.ok).toBe(true);
    const response = await download("path=many&format=zip");
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/"many" holds \d+ bytes in 66001 entries; a .zip download holds at most 4294967295 bytes and 65535 entries .*tar\.gz/);
  });

  it("maps paths onto the workspace", () => {
    expect(workspaceRelative("proj/src")).toBe("./proj/src");
    expect(workspaceRelative("/workspace/proj")).toBe("./proj");
    expect(workspaceRelative("/workspace")).toBe(".");
    expect(() => workspaceRelative("/workspace-other")).toThrow(/outside \/workspace/);
  });
});
