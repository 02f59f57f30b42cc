export * from "./read-file";
export * from "./write-file";
export * from "./edit";
export * from "./apply-patch";
