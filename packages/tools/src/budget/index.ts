export * from "./observation-limits";
export * from "./observation-turn";
export * from "./stub-json";
export * from "./truncation-notice";
