// Bundles Monaco for the browser with esbuild, after `next build`, into
// .next/static/monaco/<build id>/ (entry.ts says why it is not bundled by Next):
//   editor.js              the entry: `export default monaco`, workers wired through MonacoEnvironment
//   editor.css             every style the editor needs (the page links it before creating an editor)
//   preload.json           the chunks editor.js imports, so the page can request them with editor.js
//   chunk-*.js, *.ttf      shared code and the codicon font, content-hashed (see parseSplit for why the
//                          editor's code is in several chunks)
//   <language>-*.js        tokenizers and language services, loaded when a file of that language opens
//   <worker>-<hash>.js     editor, json, css, html and TypeScript workers
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import * as esbuild from "esbuild";
import { MONACO_URL_PREFIX, monacoBuildId } from "./build-id.mjs";

/**
 * What editor.main.js (the full editor) imports that Berth leaves out, each with why. Everything else it
 * imports (contributions, language definitions, language services) is kept, so a Monaco upgrade brings
 * its new features without an edit here. Each pattern must still match, or the build fails.
 */
const LEFT_OUT = [
  ["/external/monaco-lsp-client/", "LSP client (75 KB): Berth wires no language servers"],
  ["/contrib/inlineCompletions/browser/inlineCompletions.contribution", "inline (ghost text) completions: Berth has no provider for them"],
  ["/contrib/gpu/", "GPU renderer actions, experimental"],
  ["/iPadShowKeyboard/", "iPad keyboard button"],
  ["/inspectTokens/", "token inspector, a Monaco developer tool"],
  ["/contrib/floatingMenu/", "floating menu for chat/AI actions"],
];

const here = path.dirname(new URL(import.meta.url).pathname);
const id = monacoBuildId();
const outdir = path.resolve(here, "../.next/static/monaco", id);
const publicPath = `${MONACO_URL_PREFIX}/${id}/`;
const started = Date.now();

if (!fs.existsSync(path.resolve(here, "../.next/static"))) {
  process.stderr.write("monaco/build.mjs: .next/static is missing: run `next build` first\n");
  process.exit(1);
}
// Earlier builds are left behind by `next build` only when it was skipped; keep just this one.
fs.rmSync(path.dirname(outdir), { recursive: true, force: true });

const common = { bundle: true, minify: true, format: "esm", target: "es2022", logLevel: "warning", legalComments: "none", absWorkingDir: here };

const workers = await esbuild.build({
  ...common,
  entryPoints: {
    editor: "monaco-editor/editor/editor.worker",
    json: "monaco-editor/language/json/json.worker",
    css: "monaco-editor/language/css/css.worker",
    html: "monaco-editor/language/html/html.worker",
    ts: "monaco-editor/language/typescript/ts.worker",
  },
  entryNames: "[name].worker-[hash]",
  outdir,
  metafile: true,
});
/** @type {Record<string, string>} */
const workerFiles = {};
for (const [file, output] of Object.entries(workers.metafile.outputs)) {
  const name = output.entryPoint && path.basename(file).split(".worker-")[0];
  if (name) workerFiles[name] = `./${path.basename(file)}`;
}

/** `berth:monaco-features`: editor.main.js's imports minus LEFT_OUT, resolved from Monaco's own folder. */
const monacoFeatures = {
  name: "berth-monaco-features",
  setup(build) {
    const main = createRequire(import.meta.url).resolve("monaco-editor/editor/editor.main");
    build.onResolve({ filter: /^berth:monaco-features$/ }, () => ({ path: main, namespace: "berth-features" }));
    build.onLoad({ filter: /.*/, namespace: "berth-features" }, () => {
      const imports = fs.readFileSync(main, "utf8").split("\n").filter((line) => line.startsWith("import "));
      const unused = LEFT_OUT.filter(([pattern]) => !imports.some((line) => line.includes(pattern)));
      if (unused.length) throw new Error(`editor.main.js no longer imports ${unused.map(([p]) => p).join(", ")}: update LEFT_OUT in monaco/build.mjs`);
      const kept = imports.filter((line) => !LEFT_OUT.some(([pattern]) => line.includes(pattern)));
      // Side effects only: the API object comes from editor.api, imported by entry.ts.
      const contents = kept.map((line) => `import ${line.match(/'[^']+'/)[0]};`).join("\n");
      return { contents, resolveDir: path.dirname(main), loader: "js" };
    });
  },
};

/**
 * `berth:parse-split`: every module of vs/base and vs/editor/common, as a second entry point that no page
 * loads. esbuild puts code reached from both entries into a chunk of its own, so what editor.js needs
 * arrives as two large files (1.7 and 1.1 MB) instead of one of 2.75 MB, and Chrome parses them on two
 * background threads at once: the editor was ready about 0.15 s sooner on first visits (bench:web).
 */
const parseSplit = {
  name: "berth-parse-split",
  setup(build) {
    const vs = path.dirname(path.dirname(createRequire(import.meta.url).resolve("monaco-editor/editor/editor.api")));
    build.onResolve({ filter: /^berth:parse-split$/ }, () => ({ path: "parse-split", namespace: "berth-parse-split" }));
    build.onLoad({ filter: /.*/, namespace: "berth-parse-split" }, () => {
      const modules = ["base", "editor/common"].flatMap((dir) =>
        fs
          .readdirSync(path.join(vs, dir), { recursive: true })
          .filter((file) => file.endsWith(".js"))
          .map((file) => path.join(vs, dir, file)),
      );
      return { contents: modules.map((file) => `import ${JSON.stringify(file)};`).join("\n"), resolveDir: vs, loader: "js" };
    });
  },
};

const editor = await esbuild.build({
  ...common,
  entryPoints: { editor: path.join(here, "entry.ts"), "parse-split": "berth:parse-split" },
  splitting: true,
  outdir,
  publicPath,
  loader: { ".ttf": "file" },
  define: { __BERTH_MONACO_WORKERS__: JSON.stringify(workerFiles) },
  plugins: [monacoFeatures, parseSplit],
  metafile: true,
});

// esbuild writes a stylesheet for every lazily loaded chunk that reaches a CSS import; the page links only
// editor.css, so every rule of those must already be in it. Checked here rather than found as an unstyled
// widget.
const editorCss = fs.readFileSync(path.join(outdir, "editor.css"), "utf8");
const rules = new Set(editorCss.split("}").map((rule) => rule.trim()));
const outputs = Object.keys(editor.metafile.outputs).map((file) => path.resolve(here, file));
for (const file of outputs) {
  if (!file.endsWith(".css") || path.basename(file) === "editor.css") continue;
  const missing = fs
    .readFileSync(file, "utf8")
    .split("}")
    .map((rule) => rule.trim())
    .filter((rule) => rule && !rules.has(rule));
  if (missing.length) {
    process.stderr.write(`monaco/build.mjs: ${path.basename(file)} has ${missing.length} rules that editor.css lacks, e.g. ${missing[0].slice(0, 120)}\n`);
    process.exit(1);
  }
  fs.rmSync(file);
}

// The parse-split entry only shapes the chunks; nothing imports it.
const splitEntry = Object.keys(editor.metafile.outputs).find((file) => editor.metafile.outputs[file].entryPoint === "berth-parse-split:parse-split");
fs.rmSync(path.resolve(here, splitEntry));
outputs.splice(outputs.indexOf(path.resolve(here, splitEntry)), 1);

// The browser learns of editor.js's chunks only once it has parsed editor.js, on a main thread that is
// busy hydrating the IDE: a wait of 0.2-0.3 s. lib/preloads.tsx names them all to the page up front.
const entry = Object.entries(editor.metafile.outputs).find(([, output]) => output.entryPoint?.endsWith("entry.ts"));
const chunks = entry[1].imports.filter((imported) => imported.kind === "import-statement").map((imported) => path.basename(imported.path));
fs.writeFileSync(path.join(outdir, "preload.json"), JSON.stringify(chunks));

const scripts = outputs.filter((file) => file.endsWith(".js"));
const megabytes = (files) => (files.reduce((sum, file) => sum + fs.statSync(file).size, 0) / 1e6).toFixed(1);
process.stdout.write(`monaco ${id}: ${scripts.length} files (${megabytes(scripts)} MB), ${Object.keys(workerFiles).length} workers, in ${Date.now() - started} ms\n`);
