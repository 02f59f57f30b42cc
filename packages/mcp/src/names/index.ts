export * from "./sanitize-tool-name";
export * from "./user-tool-name";
export * from "./project-names";
