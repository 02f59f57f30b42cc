export * from "./canonical-json";
export * from "./tool-schema-hash";
export * from "./schema-pin-store";
