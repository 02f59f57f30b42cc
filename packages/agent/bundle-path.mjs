// Absolute path of the bundled agent (built by build.mjs); the sandbox image build copies this file.
import { fileURLToPath } from "node:url";

export const bundlePath = fileURLToPath(new URL("./dist/berth-agent.mjs", import.meta.url));
export default bundlePath;
