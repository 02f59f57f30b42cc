export * from "./port-relay";
export * from "./port-fault";
export * from "./list-listening-ports";
