export * from "./session-mcp-types";
export * from "./tool-annotations-for";
export * from "./to-call-tool-result";
export * from "./create-session-mcp-handler";
export * from "./create-mcp-http-listener";
export * from "./json-rpc-fault";
export * from "./priming-event-store";
