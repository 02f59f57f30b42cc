import "server-only";
import fs from "node:fs";
import path from "node:path";

export type MonacoPreloads = { scripts: string[]; styles: string[] };

let cached: MonacoPreloads | null = null;

/**
 * The editor bundle's files to fetch along with the page (monaco/build.mjs writes the list). Without
 * them the editor still loads, only later, so a missing list is not an error.
 */
export function monacoPreloads(): MonacoPreloads {
  if (cached) return cached;
  const base = process.env.BERTH_MONACO_URL ?? "";
  // The server runs in apps/web (server.mjs), where .next/ is; the URL is /_next/static/monaco/<id>.
  const file = path.join(process.cwd(), ".next", base.replace(/^\/_next\//, ""), "preload.json");
  try {
    const list = JSON.parse(fs.readFileSync(file, "utf8")) as MonacoPreloads;
    cached = { scripts: list.scripts.map((name) => `${base}/${name}`), styles: list.styles.map((name) => `${base}/${name}`) };
  } catch {
    cached = { scripts: [], styles: [] };
  }
  return cached;
}
