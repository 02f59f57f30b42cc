export * from "./tool-spec";
export * from "./tool-placement";
export * from "./define-tool";
export * from "./render-tool-table";
export * from "./lazy-tool";
export * from "./assert-builtins-registered";
