import "server-only";
import fs from "node:fs";
import path from "node:path";
import { headers } from "next/headers";
import { webEnv } from "./env";

// Files a page needs that the browser would discover late, named in its <head> so they load with it. Both
// lists come from the production build on disk (server.mjs runs Next from apps/web, where .next is);
// under `next dev`, or if a name no longer matches, nothing is preloaded and the page only loads later.

const MONACO_URL = webEnv().BERTH_MONACO_URL;
const STATIC_DIR = path.join(process.cwd(), ".next", "static");

/** The Latin faces of the UI and code fonts, which every page shows (app/globals.css imports them). */
const FONT_FILES = [/^inter-latin-wght-normal\.[\w-]+\.woff2$/, /^jetbrains-mono-latin-wght-normal\.[\w-]+\.woff2$/];

let fontUrls: string[] | null = null;
let editorUrls: string[] | null = null;

function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/**
 * The fonts, for <link rel=preload> in the root layout's <head>, so the first layout already has them:
 * without, it is done with fallback fonts (each one a fontconfig query through the browser process,
 * 0.1-0.2 s on this machine) and done again when the fonts arrive.
 */
export function fontPreloads(): string[] {
  fontUrls ??= readOr(() => {
    const media = fs.readdirSync(path.join(STATIC_DIR, "media"));
    return FONT_FILES.flatMap((pattern) => media.filter((file) => pattern.test(file)).map((file) => `/_next/static/media/${file}`));
  }, []);
  return fontUrls;
}

/**
 * The editor bundle: editor.js and the chunks monaco/build.mjs lists in preload.json (the browser would
 * otherwise learn of them only after parsing editor.js).
 */
export function editorPreloads(): string[] {
  editorUrls ??= readOr(() => {
    const chunks = JSON.parse(fs.readFileSync(path.join(STATIC_DIR, MONACO_URL.replace(/^\/_next\/static\//, ""), "preload.json"), "utf8")) as string[];
    return ["editor.js", ...chunks].map((file) => `${MONACO_URL}/${file}`);
  }, []);
  return editorUrls;
}

/**
 * For a page that opens Monaco: <link rel=modulepreload> elements, which React places in the <head>, so the
 * browser fetches and parses the files off the main thread while the page loads (measured against React
 * preload hints, which the browser sees only once React starts: the editor was ready about 0.1 s sooner),
 * and the editor's stylesheet, so linking it when Monaco loads does not wait on the network.
 */
export function EditorPreload() {
  const files = editorPreloads();
  return (
    <>
      {files.map((href) => (
        <link key={href} rel="modulepreload" href={href} />
      ))}
      {files[0] ? <link rel="preload" as="style" href={`${MONACO_URL}/editor.css`} /> : null}
    </>
  );
}

/**
 * The IDE page's early editor: a module script in the server HTML, after the editor's slot, that
 * evaluates Monaco's bundle as soon as it has loaded and creates the editor in the slot
 * (monaco/entry.ts `startIdeEditor`), before React's hydration, ready at once: a file the tree is
 * clicked for before hydration is kept and opened when the React editor adopts the editor
 * (components/editor/ide-editor.tsx). Next's own scripts wait for it: server.mjs sends them as inert links
 * (defer-page-scripts.mjs) and this script inserts them once the editor is created or has failed, so
 * neither their download and parse nor Next's runtime take a core from Monaco's download, parse and evaluation. It links the editor's stylesheet first, so that it has
 * loaded by the time Monaco has evaluated and the editor is created in the same task (monaco/entry.ts
 * `editorStylesheet`), not after a load event that hydration's tasks would run ahead of; linked from a
 * script, it holds up neither the page's first paint nor its inline scripts, as a stylesheet in the
 * HTML would (175 KB). Evaluating the bundle inside React (session 7) only
 * pushed hydration back, since the editor was still created after it. `async`: it runs when the bundle is
 * ready, not after the whole page is parsed. The browser runs it only from the server HTML; after a
 * client-side navigation React creates the editor itself. It carries the nonce of the page's CSP
 * (server.mjs puts the policy in the request's headers, as Next reads it for its own inline scripts).
 */
export async function EarlyEditorScript() {
  const files = editorPreloads();
  if (!files[0]) return null;
  const nonce = (await headers()).get("content-security-policy")?.match(/'nonce-([^']+)'/)?.[1];
  const css = JSON.stringify(`${MONACO_URL}/editor.css`);
  const source = [
    // A file clicked in the server-rendered tree before React has hydrated it reaches no handler of React's:
    // the last one is kept on the slot for the editor to open when React adopts it (monaco/entry.ts).
    `const slot = document.querySelector("[data-editor-slot]");`,
    `addEventListener("click", (event) => {`,
    `  const file = event.target?.closest?.('[data-testid="tree-file"]');`,
    `  if (slot && file?.dataset.path && slot.getAttribute("data-tree-clicks") !== "react") slot.setAttribute("data-asked-path", file.dataset.path);`,
    `}, true);`,
    // So is a right-click on a file or folder: the browser's own menu is kept from opening, and the position and
    // item go on the tree's body for the tree to open its menu there once React has it (components/ide/file-tree.tsx).
    `addEventListener("contextmenu", (event) => {`,
    `  const item = event.target?.closest?.('[data-testid="tree-file"], [data-testid="tree-folder"]');`,
    `  const body = item?.closest("[data-tree-body]");`,
    `  if (!item?.dataset.path || !body || body.getAttribute("data-tree-hydrated") === "react") return;`,
    `  event.preventDefault();`,
    `  body.setAttribute("data-asked-menu", JSON.stringify({ x: event.clientX, y: event.clientY, path: item.dataset.path, folder: item.dataset.testid === "tree-folder" }));`,
    `}, true);`,
    // And a click on a folder: it is this script's alone until the tree has React (no handler of React's may
    // fold it a second time), and the folders clicked, in order, go on the tree's body for the tree to fold or
    // unfold them once React has it.
    `addEventListener("click", (event) => {`,
    `  const folder = event.target?.closest?.('[data-testid="tree-folder"]');`,
    `  const body = folder?.closest("[data-tree-body]");`,
    `  if (!folder?.dataset.path || !body || body.getAttribute("data-tree-hydrated") === "react") return;`,
    `  event.stopPropagation();`,
    `  const asked = JSON.parse(body.getAttribute("data-asked-toggles") || "[]");`,
    `  body.setAttribute("data-asked-toggles", JSON.stringify([...asked, folder.dataset.path]));`,
    `}, true);`,
    `const link = Object.assign(document.createElement("link"), { rel: "stylesheet", href: ${css} });`,
    `link.dataset.editorCss = "loading";`,
    `link.onload = () => (link.dataset.editorCss = "loaded");`,
    `link.onerror = () => (link.dataset.editorCss = "failed");`,
    `document.head.append(link);`,
    // The page's own scripts, held back by server.mjs (defer-page-scripts.mjs) as inert links (nothing fetched
    // yet), are inserted from here once the editor is made or failed: as they were, in the parsed page.
    `const release = () => {`,
    `  for (const held of document.querySelectorAll("link[data-after-editor]")) {`,
    `    held.removeAttribute("data-after-editor");`,
    // The src as Next wrote it (not resolved): Turbopack's runtime finds its chunks by that attribute.
    `    const script = Object.assign(document.createElement("script"), { async: true });`,
    `    script.setAttribute("src", held.getAttribute("href"));`,
    `    script.nonce = held.nonce;`,
    `    document.head.append(script);`,
    `  }`,
    `};`,
    `const released = () => (document.readyState === "loading" ? addEventListener("DOMContentLoaded", release, { once: true }) : release());`,
    `import(${JSON.stringify(files[0])}).then((editor) => editor.startIdeEditor()).then(released, released);`,
  ].join("\n");
  return <script type="module" async nonce={nonce} dangerouslySetInnerHTML={{ __html: source }} />;
}
