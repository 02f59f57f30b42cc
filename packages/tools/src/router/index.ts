export * from "./tool-router";
