import { execFile, execFileSync } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const ROOT = path.resolve(import.meta.dirname, "../../../..");
const CLI = path.join(ROOT, "packages/receipts/bin/berth-verify.mjs");

/** Bundles berth-verify as `npm run build` does, so the tests run the file plain node runs. */
export function buildBerthVerify(): void {
  execFileSync("npm", ["run", "build", "-w", "@berth/receipts"], { cwd: ROOT, stdio: "pipe" });
}

/** Runs the built berth-verify. Async on purpose: the runner it asks for keys answers from this same process. */
export async function berthVerify(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await promisify(execFile)("node", [CLI, ...args], { env, encoding: "utf8" });
    return { stdout, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    return { stdout: failed.stdout ?? "", code: failed.code ?? 1 };
  }
}
