import { config } from "zod";

// Berth's pages run under a CSP without 'unsafe-eval', and zod probes `new Function` (its schema JIT) as soon
// as an object schema is built, which the browser reports as a violation. index.ts imports this module first,
// so in a browser zod never tries; the runner keeps the JIT.
if (typeof (globalThis as { document?: unknown }).document !== "undefined") config({ jitless: true });
