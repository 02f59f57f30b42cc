// Bundles the agent into one ESM file for the sandbox image (Node 18 inside the container).
import { build } from "esbuild";
import { chmod } from "node:fs/promises";
import path from "node:path";
import { bundlePath } from "./bundle-path.mjs";

/**
 * zod re-exports every locale as `z.locales`, which esbuild cannot tree-shake (~260 KB of the bundle).
 * The agent only ever speaks English, so the locale index resolves to English alone.
 */
const englishOnlyZod = {
  name: "english-only-zod",
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}`)
        ? { path: path.join(args.resolveDir, args.path), namespace: "zod-locales" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), "en.js"))};`,
      loader: "js",
      resolveDir: path.dirname(args.path),
    }));
  },
};

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
  plugins: [englishOnlyZod],
});
await chmod(bundlePath, 0o755);
console.log(`built ${bundlePath}`);
