// `node scripts/build-sandbox-image.mjs`: bundles the agent and builds the sandbox image if its inputs
// changed (the same step `npm start` / `npm test` run). Prints the image tag.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "./lib/proc.mjs";
import { ensureSandboxImage } from "./lib/sandbox-image.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
run("npm", ["run", "build", "-w", "@berth/agent"], { cwd: root });
const { image, built } = await ensureSandboxImage(root, { agentBundle: path.join(root, "packages/agent/dist/berth-agent.mjs") });
console.log(`${image} (${built ? "built" : "up to date"}), also tagged berth-sandbox:latest`);
