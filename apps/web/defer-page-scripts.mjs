// The IDE page's own scripts wait for its early editor. On a first visit the browser parses Monaco (3.7 MB)
// and Next's chunks on background threads at once, then runs whichever is ready first: Next's runtime
// instantiating the page's modules (40-70 ms of main thread) came before Monaco's evaluation and delayed the
// editor by that much, on two cores where nothing else can run meanwhile. Here each `<script async>` of Next's
// chunks in the IDE page's HTML becomes an inert `<link data-after-editor>` (no rel: nothing is fetched), and
// the page's early script (lib/preloads.tsx) inserts the scripts once it has created the editor, or given up
// on it. Fetched before that (as preloads, with Monaco's files or once they had arrived), Next's eleven chunks
// took connections, the network process and a core for their download and parse from Monaco's download,
// parse and evaluation, which the editor waits for; fetched after it, they delay React's adoption of the
// editor by about the time they take to load (docs/benchmarks.md, "web"). Applied only to an HTML page whose
// head names the editor bundle (a modulepreload of editor.js, which the early script always comes with);
// every other response passes untouched.
//
// The same page's head also puts the editor's requests first: Monaco's modulepreloads and its stylesheet's preload
// move to the top of the head, Next's `Link` header (its fonts and stylesheets, which Chromium requested before
// anything in the HTML) is not sent, and Next's low-priority preload of its main chunk goes (that chunk's script is
// held like the others). HTTP/1.1 gives a page six connections: with the fonts, the stylesheets and that chunk first,
// Monaco's largest chunks waited ~15 ms for one. The fonts and stylesheets are still asked for by the head, right
// after Monaco's files, and arrive before the first layout (docs/benchmarks.md, session 16).
import { TextDecoder } from "node:util";
import zlib from "node:zlib";

const CHUNK_SCRIPT = /<script src="(\/_next\/static\/chunks\/[^"]+\.js)"((?: [a-zA-Z]+="[^"]*")*)><\/script>/g;
const EDITOR_PRELOAD = /<link rel="modulepreload" href="[^"]*\/editor\.js"/;
/** A head longer than this is not a page we know: it passes as it is. */
const MAX_HEAD = 512 * 1024;

/** The editor's hints in the head: Monaco's modulepreloads and the preload of its stylesheet. */
const EDITOR_HINT = /<link rel="(?:modulepreload|preload)"(?: as="style")? href="[^"]*\/_next\/static\/monaco\/[^"]*"\/>/g;
/** Next's preload of one of its chunks (its main chunk, at low priority), whose script the page holds. */
const CHUNK_PRELOAD = /<link rel="preload" as="script"[^>]* href="\/_next\/static\/chunks\/[^"]+\.js"\/>/g;
const CHARSET = '<meta charSet="utf-8"/>';

/** The IDE page's head with the editor's hints first (after the charset, which must stay in the first bytes). */
export function editorHintsFirst(head) {
  const hints = head.match(EDITOR_HINT) ?? [];
  const rest = head.replace(EDITOR_HINT, "").replace(CHUNK_PRELOAD, "");
  const charset = rest.indexOf(CHARSET);
  const at = charset !== -1 ? charset + CHARSET.length : rest.indexOf(">", rest.indexOf("<head")) + 1;
  return rest.slice(0, at) + hints.join("") + rest.slice(at);
}

/** `<script src=… async nonce=…>` of a Next chunk → an inert link to it, marked for the early script. */
function deferTag(tag, src, attributes) {
  if (!/ async=""/.test(attributes)) return tag;
  const nonce = / nonce="([^"]*)"/.exec(attributes)?.[1];
  return `<link href="${src}"${nonce === undefined ? "" : ` nonce="${nonce}"`} data-after-editor=""/>`;
}

/** Where the text may end inside a tag that the next piece completes: from there on it is held back. */
function holdFrom(text) {
  let at = text.length;
  const lastOpen = text.lastIndexOf("<");
  if (lastOpen !== -1 && text.indexOf(">", lastOpen) === -1) at = lastOpen;
  const lastScript = text.lastIndexOf("<script");
  if (lastScript !== -1 && text.indexOf("</script>", lastScript) === -1) at = Math.min(at, lastScript);
  return at;
}

/**
 * The transform over the HTML as it streams: `push` each piece, send what it returns, then send `end()`.
 * Holds the text back until the head is complete (to know whether this is the IDE page), and after it only
 * a tag cut between two pieces.
 */
export function createScriptDeferrer() {
  let pending = "";
  /** @type {"head" | "defer" | "pass"} */
  let mode = "head";
  const take = (all) => {
    const at = all ? pending.length : holdFrom(pending);
    const out = pending.slice(0, at);
    pending = pending.slice(at);
    return mode === "defer" ? out.replace(CHUNK_SCRIPT, deferTag) : out;
  };
  return {
    push(text) {
      pending += text;
      if (mode === "head") {
        const end = pending.indexOf("</head>");
        if (end === -1) {
          if (pending.length <= MAX_HEAD) return "";
          mode = "pass";
        } else {
          const head = pending.slice(0, end);
          mode = EDITOR_PRELOAD.test(head) ? "defer" : "pass";
          if (mode === "defer") pending = editorHintsFirst(head) + pending.slice(end);
        }
      }
      return take(false);
    },
    end() {
      return take(true);
    },
    get deferring() {
      return mode === "defer";
    },
  };
}

/**
 * Puts the deferrer between Next and the socket for one page request (GET of an IDE page). Next is asked
 * for the HTML uncompressed (the request's Accept-Encoding is taken off) and it is gzipped here, after the
 * change, when the browser takes gzip; a response that is not a 200 text/html (a redirect to sign-in, an
 * error page) is sent exactly as Next made it.
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 */
export function deferPageScripts(req, res) {
  const acceptsGzip = /\bgzip\b/i.test(String(req.headers["accept-encoding"] ?? ""));
  delete req.headers["accept-encoding"];
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  /** @type {null | { deferrer: ReturnType<typeof createScriptDeferrer>, gzip: zlib.Gzip | null, decoder: TextDecoder }} */
  let active;
  const start = () => {
    if (active !== undefined) return active;
    const type = String(res.getHeader("content-type") ?? "");
    if (res.statusCode !== 200 || !type.startsWith("text/html") || res.getHeader("content-encoding"))
      return (active = null);
    res.removeHeader("content-length");
    // Its fonts and stylesheets would be requested before the editor's files (see above); the head still names them.
    res.removeHeader("link");
    let gzip = null;
    if (acceptsGzip) {
      res.setHeader("content-encoding", "gzip");
      gzip = zlib.createGzip();
      gzip.on("data", (chunk) => write(chunk));
      gzip.on("end", () => end());
    }
    return (active = { deferrer: createScriptDeferrer(), gzip, decoder: new TextDecoder() });
  };
  const send = (text, last) => {
    const { gzip } = active;
    if (gzip) {
      if (text) gzip.write(text);
      // Each piece goes out as it comes: the head must reach the browser before the rest is rendered.
      if (last) gzip.end();
      else gzip.flush(zlib.constants.Z_SYNC_FLUSH);
    } else if (last) end(text || undefined);
    else if (text) write(text);
  };
  // Next may pass its headers to writeHead, which sends them: they are set first, so the decision sees them.
  const writeHead = res.writeHead.bind(res);
  res.writeHead = (status, reason, headers) => {
    if (typeof reason !== "string") [reason, headers] = [undefined, reason];
    res.statusCode = status;
    if (Array.isArray(headers)) {
      const pairs = Array.isArray(headers[0])
        ? headers
        : headers.flatMap((v, i) => (i % 2 ? [] : [[v, headers[i + 1]]]));
      for (const [name, value] of pairs) res.setHeader(name, value);
    } else if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    start();
    return reason === undefined ? writeHead(status) : writeHead(status, reason);
  };
  const toText = (chunk, encoding) =>
    typeof chunk === "string"
      ? chunk
      : active.decoder.decode(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding), { stream: true });
  res.write = (chunk, encoding, callback) => {
    if (!start()) return write(chunk, encoding, callback);
    send(active.deferrer.push(toText(chunk, typeof encoding === "string" ? encoding : undefined)), false);
    if (typeof encoding === "function") encoding();
    else if (typeof callback === "function") callback();
    return true;
  };
  res.end = (chunk, encoding, callback) => {
    if (typeof chunk === "function") [chunk, callback] = [undefined, chunk];
    else if (typeof encoding === "function") [encoding, callback] = [undefined, encoding];
    if (!start()) return end(chunk, encoding, callback);
    const tail = chunk === undefined || chunk === null ? "" : toText(chunk, encoding);
    const text = active.deferrer.push(tail + active.decoder.decode()) + active.deferrer.end();
    if (typeof callback === "function") res.once("finish", callback);
    send(text, true);
    return res;
  };
}
