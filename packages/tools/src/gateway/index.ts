export * from "./gateway-tool";
export * from "./rank-capabilities";
export * from "./reachable-classes";
