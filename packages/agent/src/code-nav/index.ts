export * from "./code-nav-tool";
export { CodeIndex, codeIndexFor, dropCodeIndex, fileIdentity } from "./code-index";
export { parseImports, importLanguageOf } from "./parse-imports";
export { pathMatcher } from "./path-matcher";
