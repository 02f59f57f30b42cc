export * from "./gateway-tool";
export * from "./rank-capabilities";
