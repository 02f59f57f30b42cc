#!/usr/bin/env node
// Launcher for the bundled CLI: `npm run build -w @berth/receipts` writes ../dist/berth-verify.mjs.
try {
  await import("../dist/berth-verify.mjs");
} catch (error) {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("berth-verify.mjs")) {
    process.stderr.write("berth-verify is not built: run `npm run build -w @berth/receipts`\n");
    process.exit(2);
  }
  throw error;
}
