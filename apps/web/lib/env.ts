/**
 * The web app's environment, read here and nowhere else (lint: no process.env outside env modules; server.mjs,
 * the server's entry, reads the same variables). Each variable is named in full: Next inlines
 * `process.env.BERTH_MONACO_URL` into the browser's bundle at build (next.config.ts `env`), and only a literal
 * reference is replaced. Empty counts as unset, as in server.mjs.
 */
export interface WebEnv {
  /** Where monaco/build.mjs wrote the editor bundle (set by next.config.ts); never a CDN. */
  BERTH_MONACO_URL: string;
  /** Where the server reaches the runner: BERTH_RUNNER_URL, or the runner's port on 127.0.0.1. */
  runnerUrl: string;
}

export function webEnv(): WebEnv {
  const port = process.env.BERTH_RUNNER_PORT || "4000";
  return {
    BERTH_MONACO_URL: process.env.BERTH_MONACO_URL ?? "",
    runnerUrl: process.env.BERTH_RUNNER_URL || `http://127.0.0.1:${port}`,
  };
}
