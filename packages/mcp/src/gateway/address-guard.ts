// Keeps a user's HTTP MCP server from pointing the runner at the runner's own network: loopback (the
// runner's API, the database), private ranges, link-local (cloud metadata at 169.254.169.254) and the
// like. The check is made on every connection, after DNS, so a name that resolves to a public address at
// registration and to 127.0.0.1 later (DNS rebinding) is refused too.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { Readable } from "node:stream";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

const NOT_PUBLIC = new net.BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(prefix, bits, "ipv4");
for (const [prefix, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(prefix, bits, "ipv6");

/** True for an address on the public internet; an IPv4 address written as IPv6 (::ffff:a.b.c.d) is judged as IPv4. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  const family = net.isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? "ipv4" : "ipv6");
}

export class PrivateAddressError extends Error {
  readonly code = "EPRIVATEADDRESS";
  constructor(host: string, address: string) {
    super(
      `${host} ${host === address ? "is" : `resolves to ${address}, which is`} not a public address: a user's MCP server may only be reached on the internet (an operator can register one on an internal address with scope "global")`,
    );
  }
}

type Allowed = (address: string) => boolean;

/** A URL's hostname as an address or name (`[::1]` → `::1`). */
const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, "");

/** The first address of `host` that `allowed` refuses, or null; a name that does not resolve is left to the connection to report. */
export async function firstRefusedAddress(host: string, allowed: Allowed = isPublicAddress): Promise<string | null> {
  const bare = bareHost(host);
  if (net.isIP(bare)) return allowed(bare) ? null : bare;
  try {
    const addresses = await dns.promises.lookup(bare, { all: true, verbatim: true });
    return addresses.find(({ address }) => !allowed(address))?.address ?? null;
  } catch {
    return null;
  }
}

/** Why the runner should not call `url` (its host is, or resolves to, a refused address), or null. */
export async function addressRefusal(url: string): Promise<PrivateAddressError | null> {
  const host = bareHost(new URL(url).hostname);
  const refused = await firstRefusedAddress(host);
  return refused ? new PrivateAddressError(host, refused) : null;
}

/**
 * A fetch for the MCP SDK's HTTP transport that connects only to addresses `allowed` accepts, checked on
 * the addresses the connection really uses (a DNS lookup hook), so no second lookup can differ. Redirects
 * are not followed (one could lead anywhere); the SDK reports them as the HTTP errors they are.
 */
export function guardedFetch(allowed: Allowed = isPublicAddress): FetchLike {
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 4);
      const list = addresses as unknown as dns.LookupAddress[];
      const refused = list.find(({ address }) => !allowed(address));
      if (refused) return callback(new PrivateAddressError(hostname, refused.address), "", 4);
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };

  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = bareHost(url.hostname);
    // An address in the URL is connected to without a lookup: judge it here.
    if (net.isIP(host) && !allowed(host)) throw new PrivateAddressError(host, host);
    const headers = new Headers(init?.headers);
    const body = init?.body === undefined || init.body === null ? undefined : Buffer.from(await new Response(init.body).arrayBuffer());
    const transport = url.protocol === "https:" ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const request = transport.request(
        url,
        { method: init?.method ?? "GET", headers: Object.fromEntries(headers), lookup, ...(init?.signal ? { signal: init.signal } : {}) },
        (response) => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 599) {
            response.destroy();
            return reject(new Error(`${url.origin} answered with HTTP status ${status}`));
          }
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, one);
          }
          // A Response cannot carry a body with these statuses.
          const empty = status === 204 || status === 205 || status === 304 || init?.method === "HEAD";
          if (empty) response.resume();
          resolve(
            new Response(empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), {
              status,
              statusText: response.statusMessage ?? "",
              headers: responseHeaders,
            }),
          );
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  };
}
