// Bundles the berth-verify CLI (src/cli.ts and its dependencies: protocol, zod, canonicalize) into one
// ESM file that plain `node` runs; bin/berth-verify.mjs imports it.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

await build({
  absWorkingDir: here,
  entryPoints: ["src/cli.ts"],
  outfile: "dist/berth-verify.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
});
