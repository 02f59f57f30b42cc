// First, before any schema module: in a browser, zod without its JIT (jitless.ts).
import "./jitless";
export * from "./tool-result";
export * from "./content-block";
export * from "./agent-rpc";
export * from "./errors";
export * from "./receipt";
export * from "./tools";
export * from "./sandbox";
export * from "./admission";
export * from "./mcp";
export * from "./tool-progress";
export * from "./run-cancel";
export * from "./terminal";
export * from "./redact-secrets";
export * from "./workspace-root";
export * from "./api";
export * from "./socket-events";
