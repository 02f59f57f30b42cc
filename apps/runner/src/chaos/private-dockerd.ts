import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A Docker engine of the campaign's own, so stopping and restarting dockerd disturbs no one else using this
 * machine's engine: its own data root, exec root, pidfile and unix socket under a temp folder, a bridge of its
 * own and no iptables rules (sessions run with network none). The sandbox image is copied into it from the main
 * engine. Not `--bridge=none`: with it dockerd deletes the host's `docker0` at start, the main engine's bridge.
 */
export class PrivateDockerd {
  private daemon: ChildProcess | null = null;
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-chaos-dockerd-"));
  readonly socket = path.join(this.dir, "docker.sock");
  readonly host = `unix://${this.socket}`;
  /** An interface name of at most 15 characters, unique per process. */
  readonly bridge = `berth-cd${process.pid % 100000}`;

  async start(): Promise<void> {
    execFileSync(
      "sh",
      [
        "-c",
        'ip link show "$1" >/dev/null 2>&1 || ip link add "$1" type bridge; ip addr replace 10.213.89.1/24 dev "$1"; ip link set "$1" up',
        "sh",
        this.bridge,
      ],
      { stdio: "pipe" },
    );
    const log = fs.openSync(path.join(this.dir, "dockerd.log"), "a");
    this.daemon = spawn(
      "dockerd",
      [
        `--data-root=${path.join(this.dir, "data")}`,
        `--exec-root=${path.join(this.dir, "exec")}`,
        `--pidfile=${path.join(this.dir, "docker.pid")}`,
        `--host=${this.host}`,
        `--bridge=${this.bridge}`,
        "--ip-masq=false",
        "--iptables=false",
        "--ip6tables=false",
      ],
      { stdio: ["ignore", log, log] },
    );
    fs.closeSync(log);
    const until = Date.now() + 60_000;
    while (!this.answers()) {
      if (this.daemon.exitCode !== null || Date.now() > until)
        throw new Error(`private dockerd did not start: ${this.logTail()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** SIGTERM, as `systemctl stop docker` does: the engine stops its containers and exits. */
  async stop(): Promise<void> {
    const daemon = this.daemon;
    if (!daemon || daemon.exitCode !== null) return;
    const gone = new Promise((resolve) => daemon.once("exit", resolve));
    daemon.kill("SIGTERM");
    await gone;
    this.daemon = null;
  }

  /** The main engine's image copied in (docker save | docker load). */
  loadImage(image: string): void {
    execFileSync("sh", ["-c", `docker save "$1" | DOCKER_HOST="$2" docker load -q`, "sh", image, this.host], {
      stdio: "pipe",
    });
  }

  docker(args: string[]): string {
    return execFileSync("docker", args, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, DOCKER_HOST: this.host },
    });
  }

  answers(): boolean {
    try {
      this.docker(["version", "--format", "{{.Server.Version}}"]);
      return true;
    } catch {
      return false;
    }
  }

  /** Stopped, its mounts undone, its folder removed. */
  async destroy(): Promise<void> {
    await this.stop();
    const mounts = fs
      .readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .map((line) => line.split(" ")[1] ?? "")
      .filter((target) => target.startsWith(`${this.dir}/`))
      .sort((a, b) => b.length - a.length);
    for (const target of mounts) execFileSync("umount", ["-l", target], { stdio: "ignore" });
    fs.rmSync(this.dir, { recursive: true, force: true });
    try {
      execFileSync("ip", ["link", "delete", this.bridge], { stdio: "ignore" });
    } catch {
      // already gone
    }
  }

  private logTail(): string {
    try {
      return fs.readFileSync(path.join(this.dir, "dockerd.log"), "utf8").slice(-1500);
    } catch {
      return "(no log)";
    }
  }
}
