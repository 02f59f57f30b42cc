export * from "./terminal-manager";
export * from "./terminal-fault";
