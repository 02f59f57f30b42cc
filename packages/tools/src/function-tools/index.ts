export * from "./json-schema-subset";
export * from "./parse-function-tools-file";
export * from "./function-tool-spec";
