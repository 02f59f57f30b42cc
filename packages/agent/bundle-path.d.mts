/** Absolute path of the bundled agent, dist/berth-agent.mjs. */
export declare const bundlePath: string;
export default bundlePath;
