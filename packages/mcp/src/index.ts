export * from "./names";
export * from "./pinning";
export * from "./server";
export * from "./gateway";
