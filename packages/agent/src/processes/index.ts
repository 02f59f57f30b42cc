export * from "./bash";
export * from "./process-manager";
export * from "./process-group";
export * from "./head-tail-buffer";
export * from "./child-env";
export * from "./launch";
export * from "./separate-from-workspace";
