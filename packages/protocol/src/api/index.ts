// REST request and response schemas, one file per resource (docs/api.md "REST").
export * from "./sessions";
export * from "./runs";
export * from "./approvals";
export * from "./receipts";
export * from "./policy-rules";
export * from "./users";
export * from "./browser-sessions";
export * from "./skills";
export * from "./mcp-servers";
export * from "./downloads";
export * from "./health";
