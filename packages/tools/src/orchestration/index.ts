export * from "./dispatch-tool";
export * from "./monitor-tool";
export * from "./compete-record";
export type { CompeteTreesHost } from "./compete-trees-host";
