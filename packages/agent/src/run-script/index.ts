export * from "./run-script";
export * from "./hash-file";
export * from "./find-on-path";
export * from "./read-oom-kills";
export * from "./hash-files";
export * from "./script-command";
