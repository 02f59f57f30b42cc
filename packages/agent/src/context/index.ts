export { workspaceSummary, parseBranchLine } from "./workspace-summary";
export { languageOf } from "./language-of";
