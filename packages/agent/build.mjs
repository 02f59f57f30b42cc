// Bundles the agent into one ESM file for the sandbox image (Node 18 inside the container).
import { build } from "esbuild";
import { chmod } from "node:fs/promises";
import { bundlePath } from "./bundle-path.mjs";

await build({
  entryPoints: [new URL("./src/main.ts", import.meta.url).pathname],
  outfile: bundlePath,
  bundle: true,
  platform: "node",
  target: "node18",
  format: "esm",
  minify: true,
  legalComments: "none",
  banner: { js: "#!/usr/bin/env node" },
  logLevel: "warning",
});
await chmod(bundlePath, 0o755);
console.log(`built ${bundlePath}`);
