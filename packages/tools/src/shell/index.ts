export { classifyArgv, classifyCommand, classifyRunScript } from "./classify-command";
export type { ClassifyOptions, CommandClassification, RunScriptCall, SimpleCommand } from "./classify-command";
export { COMMAND_FAMILIES, commandHandler, duplicateCommandNames } from "./command-table";
export type { CommandFamily, CommandHandler, CommandRule } from "./command-family";
export { loadCommandCorpus, parseCommandCorpus } from "./command-corpus";
