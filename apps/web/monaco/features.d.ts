/** Resolved by monaco/build.mjs: side-effect imports of the editor's contributions and languages. */
declare module "berth:monaco-features";
