import fs from "node:fs";
import path from "node:path";
import Docker from "dockerode";

/** One Docker engine a runner may place sessions on. */
export interface DockerHostSpec {
  /** Names the host in logs, `/healthz` and placement errors: `^[a-z][a-z0-9-]{0,31}$`. */
  name: string;
  /** `unix:///path/docker.sock`, `tcp://host:port` (mutual TLS, `tls` required) or `ssh://user@host[:port]`. */
  url: string;
  /** A folder with the client's `ca.pem`, `cert.pem` and `key.pem` (Docker's convention), for `tcp://`. */
  tlsDir?: string;
  /** Sessions this host runs at most at once; placement skips a full host. */
  maxSessions: number;
  /** Whether sessions asking for network egress may be placed here (the host's firewall must be set up). */
  egress: boolean;
}

const NAME = /^[a-z][a-z0-9-]{0,31}$/;
export const DEFAULT_MAX_SESSIONS_PER_HOST = 50;

export class DockerHostsError extends Error {
  override name = "DockerHostsError";
}

/**
 * Parses `BERTH_DOCKER_HOSTS`: comma-separated `name=url`, each url with optional query settings `tls=<dir>`,
 * `max=<sessions>`, `egress=1|0`. Example:
 * `local=unix:///var/run/docker.sock?egress=1,dh2=tcp://10.213.90.2:2376?tls=/etc/berth/dh2&max=20`.
 * Errors name the entry and the setting that was wrong.
 */
export function parseDockerHosts(text: string): DockerHostSpec[] {
  const hosts: DockerHostSpec[] = [];
  for (const [index, raw] of text.split(",").entries()) {
    const entry = raw.trim();
    if (!entry) continue;
    const where = `BERTH_DOCKER_HOSTS entry ${index + 1} (${JSON.stringify(entry)})`;
    const eq = entry.indexOf("=");
    if (eq < 1) throw new DockerHostsError(`${where}: expected name=url`);
    const name = entry.slice(0, eq);
    if (!NAME.test(name)) throw new DockerHostsError(`${where}: name must match ${NAME.source}`);
    if (hosts.some((h) => h.name === name)) throw new DockerHostsError(`${where}: the name ${name} is used twice`);
    let url: URL;
    try {
      url = new URL(entry.slice(eq + 1));
    } catch {
      throw new DockerHostsError(`${where}: ${JSON.stringify(entry.slice(eq + 1))} is not a URL`);
    }
    const settings = url.searchParams;
    for (const key of settings.keys())
      if (!["tls", "max", "egress"].includes(key)) throw new DockerHostsError(`${where}: unknown setting ${key} (tls, max, egress)`);
    const max = settings.get("max");
    const maxSessions = max === null ? DEFAULT_MAX_SESSIONS_PER_HOST : Number(max);
    if (!Number.isInteger(maxSessions) || maxSessions < 1)
      throw new DockerHostsError(`${where}: max must be a whole number ≥ 1, got ${JSON.stringify(max)}`);
    const egress = settings.get("egress");
    if (egress !== null && egress !== "0" && egress !== "1")
      throw new DockerHostsError(`${where}: egress must be 1 or 0, got ${JSON.stringify(egress)}`);
    const tlsDir = settings.get("tls") ?? undefined;
    url.search = "";
    if (url.protocol === "tcp:" && !tlsDir)
      throw new DockerHostsError(`${where}: a tcp:// engine needs tls=<dir> with ca.pem, cert.pem and key.pem (mutual TLS)`);
    if (!["unix:", "tcp:", "ssh:"].includes(url.protocol))
      throw new DockerHostsError(`${where}: the scheme must be unix://, tcp:// or ssh://, got ${url.protocol}//`);
    // A unix socket is local: egress is allowed there unless switched off, since setup firewalls this host.
    hosts.push({ name, url: url.href, tlsDir, maxSessions, egress: egress === null ? url.protocol === "unix:" : egress === "1" });
  }
  if (hosts.length === 0) throw new DockerHostsError("BERTH_DOCKER_HOSTS names no host");
  return hosts;
}

/** A dockerode client for the host: its socket, TLS files read once, or ssh through docker-modem. */
export function dockerClientFor(host: DockerHostSpec): Docker {
  const url = new URL(host.url);
  if (url.protocol === "unix:") return new Docker({ socketPath: url.pathname });
  if (url.protocol === "ssh:")
    return new Docker({
      protocol: "ssh",
      host: url.hostname,
      port: url.port ? Number(url.port) : 22,
      username: decodeURIComponent(url.username) || undefined,
    } as Docker.DockerOptions);
  const dir = host.tlsDir ?? "";
  const read = (file: string) => {
    try {
      return fs.readFileSync(path.join(dir, file));
    } catch (error) {
      throw new DockerHostsError(`Docker host ${host.name}: cannot read ${path.join(dir, file)} (${(error as Error).message})`);
    }
  };
  return new Docker({
    protocol: "https",
    host: url.hostname,
    port: Number(url.port || 2376),
    ca: read("ca.pem"),
    cert: read("cert.pem"),
    key: read("key.pem"),
  });
}
