export * from "./compete-trees";
export * from "./tree-methods";
