export * from "./tool-spec";
export * from "./tool-placement";
export * from "./define-tool";
export * from "./render-tool-table";
