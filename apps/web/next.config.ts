import type { NextConfig } from "next";

// The browser reaches the runner through this app's own origin: server.mjs proxies /api, /socket.io,
// /mcp and /healthz (websockets included) at run time, so no URL is baked in at build.
const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ["@berth/protocol"],
  typescript: { ignoreBuildErrors: false },
};

export default config;
