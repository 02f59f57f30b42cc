// Next's built assets (/_next/static/…) served from memory, each compressed once. Next compresses every
// response as it sends it: the editor's chunks alone cost it ~150 ms of CPU per cold page load, on the
// same cores the browser and the runner need. These files are content-hashed and never change while the
// server runs, so each one is read, hashed and compressed once, then served from memory.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";

const PREFIX = "/_next/static/";
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

const TYPES = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".ttf": "font/ttf",
  ".txt": "text/plain; charset=utf-8",
};
/** Already compressed formats gain nothing from another pass. */
const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".json", ".map", ".svg", ".ttf", ".txt", ".ico"]);

/**
 * @param {string} staticDir absolute path of `.next/static`
 * @returns {{ handle(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): boolean, warm(): Promise<number> }}
 *   handle() answers and returns true, or returns false to let Next answer (not ours, or no such file).
 */
export function createStaticAssets(staticDir) {
  const root = path.resolve(staticDir);
  /** @type {Map<string, Promise<Asset | null>>} */
  const cache = new Map();

  function resolve(urlPath) {
    let relative;
    try {
      relative = decodeURIComponent(urlPath.slice(PREFIX.length));
    } catch {
      return null;
    }
    const file = path.resolve(root, relative);
    return file.startsWith(root + path.sep) ? file : null;
  }

  function load(file) {
    let entry = cache.get(file);
    if (!entry) {
      entry = fs.promises.readFile(file).then(
        (raw) => new Asset(raw, path.extname(file)),
        () => null,
      );
      cache.set(file, entry);
      // A missing file is not remembered: a later build may add it.
      void entry.then((asset) => asset ?? cache.delete(file));
    }
    return entry;
  }

  function handle(req, res) {
    const url = req.url ?? "";
    if (!url.startsWith(PREFIX) || (req.method !== "GET" && req.method !== "HEAD")) return false;
    const file = resolve(url.split("?")[0]);
    // A file already in memory needs no look at the disk; a new one must exist, or Next answers (404).
    if (!file || (!cache.has(file) && !fs.statSync(file, { throwIfNoEntry: false })?.isFile())) return false;
    const send = async () => {
      const asset = await load(file);
      if (!asset) return void res.writeHead(404).end();
      const headers = { "content-type": asset.type, "cache-control": "public, max-age=31536000, immutable", etag: asset.etag, vary: "Accept-Encoding" };
      if (req.headers["if-none-match"] === asset.etag) return void res.writeHead(304, headers).end();
      const encoding = asset.pickEncoding(String(req.headers["accept-encoding"] ?? ""));
      const body = encoding ? await asset.encoded(encoding) : asset.raw;
      if (encoding) headers["content-encoding"] = encoding;
      headers["content-length"] = body.length;
      res.writeHead(200, headers);
      res.end(req.method === "HEAD" ? undefined : body);
    };
    send().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
    return true;
  }

  /** Compresses every asset ahead of the first visitor; one at a time, so serving is never starved. */
  async function warm() {
    const files = fs.existsSync(root) ? fs.readdirSync(root, { recursive: true, withFileTypes: true }) : [];
    let count = 0;
    for (const entry of files) {
      if (!entry.isFile()) continue;
      const asset = await load(path.join(entry.parentPath, entry.name));
      if (asset?.compressible) await Promise.all([asset.encoded("br"), asset.encoded("gzip")]);
      count++;
    }
    return count;
  }

  return { handle, warm };
}

class Asset {
  /** @param {Buffer} raw @param {string} ext */
  constructor(raw, ext) {
    this.raw = raw;
    this.type = TYPES[ext] ?? "application/octet-stream";
    this.etag = `"${crypto.createHash("sha1").update(raw).digest("base64url")}"`;
    this.compressible = COMPRESSIBLE.has(ext) && raw.length > 1024;
    /** @type {Map<"br" | "gzip", Promise<Buffer>>} */
    this.encodings = new Map();
  }

  /** Brotli where the client takes it (Chrome does, even on http://127.0.0.1), else gzip, else none. */
  pickEncoding(acceptEncoding) {
    if (!this.compressible) return null;
    if (/\bbr\b/.test(acceptEncoding)) return "br";
    if (/\bgzip\b/.test(acceptEncoding)) return "gzip";
    return null;
  }

  /** @param {"br" | "gzip"} encoding */
  encoded(encoding) {
    let body = this.encodings.get(encoding);
    if (!body) {
      // Brotli quality 5 takes ~60 ms for a 2.4 MB chunk and comes within a few percent of quality 11.
      body =
        encoding === "br"
          ? brotli(this.raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: this.raw.length } })
          : gzip(this.raw, { level: 6 });
      this.encodings.set(encoding, body);
    }
    return body;
  }
}
