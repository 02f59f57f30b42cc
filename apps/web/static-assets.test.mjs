import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStaticAssets } from "./static-assets.mjs";

const chunk = "globalThis.x = [" + Array.from({ length: 5000 }, (_, i) => i).join(",") + "];\n";
let dir;
let server;
let base;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-static-"));
  fs.mkdirSync(path.join(dir, "static/chunks"), { recursive: true });
  fs.writeFileSync(path.join(dir, "static/chunks/app.js"), chunk);
  fs.writeFileSync(path.join(dir, "static/chunks/tiny.css"), "a{}");
  fs.writeFileSync(path.join(dir, "secret.txt"), "not an asset");
  const assets = createStaticAssets(path.join(dir, "static"));
  server = http.createServer((req, res) => {
    if (!assets.handle(req, res)) res.writeHead(418).end("next");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
afterAll(() => {
  server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Raw bytes and headers, without fetch's transparent decompression. */
function get(route, headers = {}) {
  return new Promise((resolve, reject) => {
    http.get(`${base}${route}`, { headers }, (res) => {
      const parts = [];
      res.on("data", (part) => parts.push(part));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(parts) }));
    }).on("error", reject);
  });
}

describe("static assets", () => {
  it("serves brotli or gzip as the client accepts, identical once decoded, cached for a year", async () => {
    const br = await get("/_next/static/chunks/app.js", { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(br.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(br.headers["cache-control"]).toContain("immutable");
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(chunk);
    const gz = await get("/_next/static/chunks/app.js", { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.body).toString()).toBe(chunk);
    const plain = await get("/_next/static/chunks/app.js");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(chunk);
    expect(Number(plain.headers["content-length"])).toBe(chunk.length);
  });

  it("answers 304 to a matching etag and leaves tiny files uncompressed", async () => {
    const first = await get("/_next/static/chunks/app.js");
    const again = await get("/_next/static/chunks/app.js", { "if-none-match": first.headers.etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const tiny = await get("/_next/static/chunks/tiny.css", { "accept-encoding": "br" });
    expect(tiny.headers["content-encoding"]).toBeUndefined();
    expect(tiny.body.toString()).toBe("a{}");
  });

  it("leaves missing files, other paths and escapes out of the static folder to Next", async () => {
    expect((await get("/_next/static/chunks/missing.js")).status).toBe(418);
    expect((await get("/_next/static/../secret.txt")).status).toBe(418);
    expect((await get("/_next/static/%2e%2e/secret.txt")).status).toBe(418);
    expect((await get("/_next/static/%E0%A4%A")).status).toBe(418);
    expect((await get("/login")).status).toBe(418);
  });
});
