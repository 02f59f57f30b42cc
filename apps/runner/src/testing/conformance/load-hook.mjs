// A module load hook: the conformance suite's bundle imports globSync from "fs", which Node 20 lacks.
// Only that one import is rewritten (to ./glob-sync-shim.mjs), in memory; the suite on disk is untouched.
const SHIM = new URL("./glob-sync-shim.mjs", import.meta.url).href;
const FS_IMPORT = /import\{([^}]*)\}from"fs"/;

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!url.includes("/@modelcontextprotocol/conformance/dist/")) return loaded;
  const source = String(loaded.source).replace(FS_IMPORT, (whole, names) => {
    const list = names.split(",");
    const glob = list.find((n) => n.trim().startsWith("globSync"));
    if (!glob) return whole;
    const rest = list.filter((n) => n !== glob);
    return `import{${rest.join(",")}}from"fs";import{${glob}}from${JSON.stringify(SHIM)}`;
  });
  return { ...loaded, source, shortCircuit: true };
}
