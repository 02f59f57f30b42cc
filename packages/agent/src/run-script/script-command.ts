/**
 * How each interpreter is made to run the script bytes the agent read and checked, handed to it on fd 3
 * (a pipe), never the file on disk: a rewrite after the check changes nothing. Where the interpreter
 * allows, the script still sees its own path (`__file__`, `__filename`, `$0`) and imports beside it.
 */
export const SCRIPT_FD_PATH = "/dev/fd/3";

// sys.argv, __file__ and sys.path[0] as `python3 <script>` sets them; the code runs as __main__ itself.
const PYTHON_BOOT = [
  "def _b():",
  " import sys,os",
  " p=sys.argv[1];del sys.argv[0]",
  " sys.path[0]=os.path.dirname(os.path.abspath(p))",
  " with os.fdopen(3,'rb') as f:s=f.read()",
  " m=sys.modules['__main__'];del m._b",
  " m.__file__=p",
  " return compile(s,p,'exec')",
  "exec(_b())",
].join("\n");

// The script as node would run it from its path: CommonJS as the main module (__filename, require beside it,
// require.main === module), or ESM (.mjs, or "type": "module" in the nearest package.json) through a load
// hook that answers the script's own file URL with these bytes (import.meta.url and relative imports hold).
// The globals `node -e` defines are removed first, so the script sees none of them.
const NODE_BOOT = [
  'const M=require("module"),fs=require("fs"),path=require("path"),{pathToFileURL}=require("url");',
  'const f=process.argv[1];const src=fs.readFileSync(3,"utf8");fs.closeSync(3);',
  'const typeOf=(d)=>{for(;;){try{return JSON.parse(fs.readFileSync(path.join(d,"package.json"),"utf8")).type}catch{}const u=path.dirname(d);if(u===d)return undefined;d=u}};',
  'for(const k of ["require","module","exports","__filename","__dirname"])delete globalThis[k];',
  'const esm=f.endsWith(".mjs")||(!f.endsWith(".cjs")&&typeOf(path.dirname(f))==="module");',
  'if(esm){const url=pathToFileURL(f).href;M.register("data:text/javascript,"+encodeURIComponent("let d;export function initialize(x){d=x}export async function load(u,c,n){if(u===d.url)return{format:\'module\',source:d.source,shortCircuit:true};return n(u,c)}"),{data:{url,source:src}});import(url).catch((e)=>{console.error(e);process.exitCode=1})}',
  'else{const m=new M(f,null);m.id=".";m.filename=f;m.paths=M._nodeModulePaths(path.dirname(f));process.mainModule=m;M._cache[f]=m;m._compile(src.replace(/^#!.*/,""),f);m.loaded=true}',
].join("\n");

// Node's "pipe" stdio is a socket, which /dev/fd/3 cannot open: for the interpreters that open a path,
// bash swaps it for a real pipe fed by cat, then becomes the interpreter (so its exit and signals are the run's).
const RELAY = 'exec 3< <(exec cat <&3); exec "$@"';

function relayed(command: string[]): string[] {
  return ["/bin/bash", "-c", RELAY, "bash", ...command];
}

/** The full argv that runs the script read from fd 3 (the first element is the program). */
export function scriptCommand(
  interpreter: string,
  interpreterPath: string,
  interpreterArgs: string[],
  scriptPath: string,
  args: string[],
): string[] {
  switch (interpreter) {
    case "python":
    case "python3":
      return [interpreterPath, "-u", ...interpreterArgs, "-c", PYTHON_BOOT, scriptPath, ...args];
    case "node":
      return [interpreterPath, ...interpreterArgs, "-e", NODE_BOOT, "--", scriptPath, ...args];
    case "bash":
    case "sh":
      // `$0` is the script's path; `.` reads the whole pipe as the script.
      return relayed([interpreterPath, ...interpreterArgs, "-c", `. ${SCRIPT_FD_PATH}`, scriptPath, ...args]);
    default:
      // perl, ruby, Rscript, julia, octave read the pipe as a file; their `$0` is /dev/fd/3.
      return relayed([interpreterPath, ...interpreterArgs, SCRIPT_FD_PATH, ...args]);
  }
}
