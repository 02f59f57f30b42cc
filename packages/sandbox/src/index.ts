export * from "./driver";
export * from "./docker";
export * from "./agent-connection";
export * from "./errors";
export * from "./warm-pool";
export * from "./start-gate";
export * from "./hosts";
