export * from "./tool-router";
export * from "./scoped-tools";
