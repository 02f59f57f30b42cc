export * from "./terminal-service";
export * from "./terminal-follower";
export * from "./register-terminal-events";
