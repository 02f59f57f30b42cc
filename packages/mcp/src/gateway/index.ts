export * from "./gateway-types";
export * from "./backoff-delay";
export * from "./stdio-launcher";
export * from "./upstream-connection";
export * from "./from-call-tool-result";
export * from "./action-class-of-mcp-tool";
export * from "./mcp-client-gateway";
export * from "./create-mcp-tool-providers";
