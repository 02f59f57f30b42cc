export * from "./builtin-tools";
