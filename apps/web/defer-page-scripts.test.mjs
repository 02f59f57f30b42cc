import http from "node:http";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptDeferrer, deferPageScripts, editorHintsFirst } from "./defer-page-scripts.mjs";

const HEAD =
  '<!DOCTYPE html><html><head><link rel="stylesheet" href="/_next/static/chunks/a.css"/>' +
  '<script src="/_next/static/chunks/runtime.js" async="" nonce="N1"></script>' +
  '<script src="/_next/static/chunks/poly.js" noModule="" nonce="N1"></script>' +
  '<link rel="modulepreload" href="/_next/static/monaco/abc/editor.js"/></head>';
const BODY =
  '<body><div data-editor-slot=""></div><script nonce="N1">self.__next_f.push([1,"a<b"])</script><script src="/_next/static/chunks/main.js" nonce="N1" async=""></script></body></html>';
const held = (src) =>
  `<link href="/_next/static/chunks/${src}" nonce="N1" data-after-editor=""/>`;
const EDITOR_JS = '<link rel="modulepreload" href="/_next/static/monaco/abc/editor.js"/>';
// The editor's hint moves to the top of the head; the chunks' scripts become inert links.
const EXPECTED = (HEAD + BODY)
  .replace(EDITOR_JS, "")
  .replace("<head>", `<head>${EDITOR_JS}`)
  .replace('<script src="/_next/static/chunks/runtime.js" async="" nonce="N1"></script>', held("runtime.js"))
  .replace('<script src="/_next/static/chunks/main.js" nonce="N1" async=""></script>', held("main.js"));

/** Runs the whole page through a deferrer in pieces of `size` characters. */
function throughDeferrer(html, size) {
  const deferrer = createScriptDeferrer();
  let out = "";
  for (let i = 0; i < html.length; i += size) out += deferrer.push(html.slice(i, i + size));
  return out + deferrer.end();
}

describe("createScriptDeferrer", () => {
  it("turns the IDE page's async chunk scripts into inert links for the early script, wherever the pieces are cut", () => {
    for (const size of [1, 7, 64, 100_000]) expect(throughDeferrer(HEAD + BODY, size)).toBe(EXPECTED);
  });

  it("keeps a script that is not async (the nomodule polyfill) and inline scripts as they are", () => {
    const out = throughDeferrer(HEAD + BODY, 13);
    expect(out).toContain('<script src="/_next/static/chunks/poly.js" noModule="" nonce="N1"></script>');
    expect(out).toContain('self.__next_f.push([1,"a<b"])</script>');
  });

  it("passes a page whose head does not name the editor bundle untouched", () => {
    const page = HEAD.replace(/<link rel="modulepreload"[^>]+>/, "") + BODY;
    expect(throughDeferrer(page, 9)).toBe(page);
  });

  it("puts the editor's hints first in the head, after the charset, and drops Next's preload of a chunk it holds", () => {
    const monaco = (file) => `<link rel="modulepreload" href="/_next/static/monaco/abc/${file}"/>`;
    const editorCss = '<link rel="preload" as="style" href="/_next/static/monaco/abc/editor.css"/>';
    const font = '<link rel="preload" href="/_next/static/media/inter.woff2" as="font" type="font/woff2" crossorigin="anonymous"/>';
    const stylesheet = '<link rel="stylesheet" href="/_next/static/chunks/a.css" nonce="N1" data-precedence="next"/>';
    const mainPreload = '<link rel="preload" as="script" fetchPriority="low" nonce="N1" href="/_next/static/chunks/main.js"/>';
    const head =
      '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width"/>' +
      stylesheet + mainPreload + font + monaco("editor.js") + monaco("chunk-A.js") + monaco("chunk-B.js") + editorCss + "</head>";
    expect(editorHintsFirst(head)).toBe(
      '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>' + monaco("editor.js") + monaco("chunk-A.js") + monaco("chunk-B.js") + editorCss +
        '<meta name="viewport" content="width=device-width"/>' + stylesheet + font + "</head>",
    );
    // The fonts and stylesheets are still named (after the editor's files); so is the page's held main script.
    const out = throughDeferrer(head + BODY, 11);
    expect(out.startsWith('<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/>' + monaco("editor.js"))).toBe(true);
    expect(out).toContain(font);
    expect(out).not.toContain(mainPreload);
    expect(out).toContain(held("main.js"));
  });

  it("sends nothing before the head is complete, then all of it", () => {
    const deferrer = createScriptDeferrer();
    expect(deferrer.push(HEAD.slice(0, 50))).toBe("");
    expect(deferrer.push(HEAD.slice(50) + "<body>")).toBe(EXPECTED.slice(0, EXPECTED.indexOf("<body>") + 6));
    expect(deferrer.deferring).toBe(true);
  });
});

let server;
afterEach(() => server?.close());

/** A server whose handler writes like Next: headers set, the page in pieces, or a redirect. */
async function serve(handler) {
  server = http.createServer((req, res) => {
    deferPageScripts(req, res);
    handler(req, res);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

function get(url, headers) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}

describe("deferPageScripts", () => {
  const page = (req, res) => {
    // Next is asked for the HTML as is.
    res.setHeader("x-saw-encoding", String(req.headers["accept-encoding"] ?? "none"));
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.setHeader("link", '</_next/static/media/inter.woff2>; rel=preload; as="font"');
    res.write(Buffer.from(HEAD.slice(0, 120)));
    res.write(HEAD.slice(120) + BODY.slice(0, 30));
    res.end(BODY.slice(30));
  };

  it("gzips the changed page for a browser that takes gzip", async () => {
    const base = await serve(page);
    const response = await get(`${base}/sessions/s1`, { "accept-encoding": "gzip, br" });
    expect(response.headers["content-encoding"]).toBe("gzip");
    // Next's Link header (fonts, stylesheets) is not sent: the browser would ask for them before the editor's files.
    expect(response.headers.link).toBeUndefined();
    expect(response.headers["x-saw-encoding"]).toBe("none");
    expect(zlib.gunzipSync(response.body).toString()).toBe(EXPECTED);
  });

  it("does the same when Next hands its headers to writeHead", async () => {
    const base = await serve((req, res) => {
      res.writeHead(200, {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Length": String((HEAD + BODY).length),
      });
      res.write(HEAD + BODY.slice(0, 10));
      res.end(BODY.slice(10));
    });
    const response = await get(`${base}/sessions/s1`, { "accept-encoding": "gzip" });
    expect(response.headers["content-length"]).toBeUndefined();
    expect(zlib.gunzipSync(response.body).toString()).toBe(EXPECTED);
  });

  it("sends it as is to a client that takes no encoding", async () => {
    const base = await serve(page);
    const response = await get(`${base}/sessions/s1`, {});
    expect(response.headers["content-encoding"]).toBeUndefined();
    expect(response.body.toString()).toBe(EXPECTED);
  });

  it("leaves a redirect exactly as it was made", async () => {
    const base = await serve((_req, res) => {
      res.statusCode = 307;
      res.setHeader("location", "/login?next=%2Fsessions%2Fs1");
      res.setHeader("link", '</login>; rel=preload; as="document"');
      res.end("/login?next=%2Fsessions%2Fs1");
    });
    const response = await get(`${base}/sessions/s1`, { "accept-encoding": "gzip" });
    expect(response.status).toBe(307);
    expect(response.headers.link).toBe("</login>; rel=preload; as=\"document\"");
    expect(response.headers.location).toBe("/login?next=%2Fsessions%2Fs1");
    expect(response.headers["content-encoding"]).toBeUndefined();
    expect(response.body.toString()).toBe("/login?next=%2Fsessions%2Fs1");
  });
});
