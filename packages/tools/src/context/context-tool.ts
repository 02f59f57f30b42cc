import { lazyTool } from "../registry/lazy-tool";
import { CONTEXT_SURFACE } from "./context-surface";

/** Registered eagerly (surface only); the implementation loads on the first call. */
export const contextTool = lazyTool({
  ...CONTEXT_SURFACE,
  load: async () => (await import("./context-impl")).contextImplementation,
});
