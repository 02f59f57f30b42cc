export * from "./context-host";
export * from "./context-tool";
