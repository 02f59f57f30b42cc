// `npm run setup [-- --for-tests]`: the setup `npm start` (or, with --for-tests, `npm test`) runs first, alone:
// installs what is missing, builds, and starts no server. Each step prints its duration.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setup, SetupError } from "./lib/setup.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.resolve(root, process.env.BERTH_DATA_DIR || ".berth");

try {
  await setup(root, { dataDir, forTests: process.argv.includes("--for-tests") });
} catch (error) {
  process.stderr.write(`npm run setup: ${error instanceof SetupError ? error.message : (error.stack ?? error)}\n`);
  process.exit(1);
}
