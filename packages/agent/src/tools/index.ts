export * from "./tool-context";
export * from "./tool-failure-error";
export * from "./call-tool";
export * from "./format-arg-issues";
export * from "./tool-registry";
