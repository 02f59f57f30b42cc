export * from "./admission";
