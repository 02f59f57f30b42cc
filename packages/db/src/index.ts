export { createDatabase, pingDatabase, databaseKind, sqlitePath } from "./create-database";
export { restrictDataDir } from "./restrict-data-dir";
export type { Database, DatabaseOptions, DatabaseKind } from "./create-database";
export * from "./repositories";
export type * from "./generated/sqlite/models";
