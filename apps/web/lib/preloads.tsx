import "server-only";
import fs from "node:fs";
import path from "node:path";
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
 * and the editor's stylesheet, so linking it when Monaco loads does not wait on the network. Monaco's code
 * is evaluated right after hydration (use-load-schedule.ts): evaluated earlier, from a module script with
 * the page, it pushed hydration back (the IDE interactive 0.17 s later on a quiet machine) and the editor
 * was ready no sooner, since it is created after hydration either way.
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
