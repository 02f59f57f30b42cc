export { WarmPool, type WarmPoolOptions } from "./warm-pool";
export { MAX_WARM_POOL, WARM_CONTAINER_BYTES, defaultWarmPoolMemory, warmPoolMaxSize } from "./warm-pool-budget";
