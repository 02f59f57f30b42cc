export * from "./run-script";
