// Bundles the berth-verify CLI (src/cli.ts and its dependencies: protocol, zod, canonicalize) into one
// ESM file that plain `node` runs, with no node_modules beside it. `node build.mjs` writes
// dist/berth-verify.mjs (bin/berth-verify.mjs imports it); the web app calls bundleVerifier() to serve the
// same file at /verify/berth-verify.mjs.
import { build } from "esbuild";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

/** @param {string} outfile absolute, or relative to this package */
export async function bundleVerifier(outfile) {
  await build({
    absWorkingDir: here,
    entryPoints: ["src/cli.ts"],
    outfile: path.resolve(here, outfile),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    legalComments: "none",
    logLevel: "warning",
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await bundleVerifier("dist/berth-verify.mjs");
}
