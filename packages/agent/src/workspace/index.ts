export * from "./workspace";
export * from "./atomic-write";
export * from "./text-file";
export * from "./sync-skills";
