export * from "./update-agents-md";
