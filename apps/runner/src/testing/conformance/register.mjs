// Preload for running the official MCP conformance suite against a Berth runner (node --import this):
// 1. the load hook that gives its bundle a globSync on Node 20;
// 2. the bearer token on every request to the runner. The suite's server scenarios connect without
//    auth options, and /mcp/:sessionId needs `Authorization: Bearer` — as any configured MCP client
//    sends it. Only requests to BERTH_CONFORMANCE_ORIGIN get it; Host and Origin are left as the suite set them.
import { register } from "node:module";
import { getGlobalDispatcher, setGlobalDispatcher } from "undici";

register("./load-hook.mjs", import.meta.url);

const origin = process.env.BERTH_CONFORMANCE_ORIGIN;
const token = process.env.BERTH_CONFORMANCE_TOKEN;
if (origin && token) {
  const authorization = `Bearer ${token}`;
  const withAuth = (headers) => {
    if (headers == null) return { authorization };
    if (Array.isArray(headers)) {
      // undici takes a flat [name, value, …] list or [name, value] pairs.
      return typeof headers[0] === "string" || headers.length === 0 ? [...headers, "authorization", authorization] : [...headers, ["authorization", authorization]];
    }
    return { ...headers, authorization };
  };
  setGlobalDispatcher(
    getGlobalDispatcher().compose((dispatch) => (opts, handler) => {
      const target = new URL(String(opts.origin)).origin;
      return dispatch(target === origin ? { ...opts, headers: withAuth(opts.headers) } : opts, handler);
    }),
  );
}
