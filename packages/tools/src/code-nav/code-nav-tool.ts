import { lazyTool } from "../registry/lazy-tool";
import { CODE_NAV_SURFACE } from "./code-nav-surface";

/** Registered eagerly (surface only); the implementation loads on the first call. */
export const codeNavTool = lazyTool({
  ...CODE_NAV_SURFACE,
  load: async () => (await import("./code-nav-impl")).codeNavImplementation,
});
