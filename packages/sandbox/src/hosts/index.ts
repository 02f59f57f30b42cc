export * from "./docker-hosts";
export * from "./pick-host";
export * from "./multi-host-driver";
export * from "./create-multi-host-driver";
