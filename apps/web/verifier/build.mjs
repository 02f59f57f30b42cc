// Writes the one-file receipt verifier into public/verify/berth-verify.mjs before `next build`, so the
// share page can offer it: a teammate runs `node berth-verify.mjs receipt.json --key key.pem` with nothing
// but Node (no checkout, no npm install). The bundle is packages/receipts' own CLI, built by its build.mjs.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundleVerifier } from "../../../packages/receipts/build.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
await bundleVerifier(path.join(here, "..", "public", "verify", "berth-verify.mjs"));
