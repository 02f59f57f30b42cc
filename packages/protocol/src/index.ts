export * from "./tool-result";
export * from "./agent-rpc";
export * from "./errors";
export * from "./receipt";
export * from "./tools";
export * from "./sandbox";
export * from "./admission";
export * from "./mcp";
