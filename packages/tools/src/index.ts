export * from "./admission";
export * from "./shell";
export * from "./registry";
export * from "./builtin";
export * from "./router";
export * from "./gateway";
export * from "./orchestration";
