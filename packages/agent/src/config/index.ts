export * from "./agent-config";
