export * from "./agent-server";
export * from "./line-splitter";
