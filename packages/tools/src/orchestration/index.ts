export * from "./dispatch-tool";
export * from "./monitor-tool";
