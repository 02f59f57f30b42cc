export * from "./test-mcp-server";
export * from "./create-host-stdio-launcher";
