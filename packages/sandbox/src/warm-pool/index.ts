export { WarmPool, type WarmPoolOptions } from "./warm-pool";
