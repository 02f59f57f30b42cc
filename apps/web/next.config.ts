import type { NextConfig } from "next";
import { MONACO_URL_PREFIX, monacoBuildId } from "./monaco/build-id.mjs";

// The browser reaches the runner through this app's own origin: server.mjs proxies /api, /socket.io,
// /mcp and /healthz (websockets included) at run time, so no URL is baked in at build.
const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ["@berth/protocol"],
  typescript: { ignoreBuildErrors: false },
  // Where monaco/build.mjs puts the editor bundle, inlined into the page at build time.
  env: { BERTH_MONACO_URL: `${MONACO_URL_PREFIX}/${monacoBuildId()}` },
};

export default config;
