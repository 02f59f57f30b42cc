export * from "./run-script";
export * from "./hash-file";
export * from "./find-on-path";
export * from "./read-oom-kills";
