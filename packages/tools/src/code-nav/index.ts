export * from "./code-nav-tool";
