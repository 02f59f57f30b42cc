export * from "./glob";
export * from "./grep";
export * from "./glob-to-regexp";
