export * from "./code-nav-tool";
export { CodeIndex, fileIdentity } from "./code-index";
export { codeIndexFor, dropCodeIndex } from "./code-index-cache";
export { parseImports, importLanguageOf } from "./parse-imports";
export { pathMatcher } from "./path-matcher";
