import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupRunner, docker, testRunnerId } from "../testing/docker-test-kit";
import { SandboxLabel } from "../docker/sandbox-labels";
import { AgentConnection } from "./agent-connection";

/**
 * Issue 14 item 13, with a real container: workspace code can no longer write to the agent's stdout
 * (agent-separation.docker.test.ts), so this container's entrypoint plays the hostile agent and prints 5000 garbage
 * lines (terminal escapes, a forged log line, 4 KiB each) before a real agent answers on the same stream.
 */
describe("AgentConnection over a container that prints garbage (real engine)", () => {
  const runnerId = testRunnerId("garbage");
  let container: Docker.Container | undefined;

  afterAll(async () => {
    await container?.remove({ force: true }).catch(() => undefined);
    await cleanupRunner(runnerId);
  });

  it("turns 5000 garbage lines into at most 20 bounded protocol-error events and one summary, then still talks", async () => {
    container = await docker.createContainer({
      Image: "berth-sandbox:latest",
      Labels: { [SandboxLabel.Runner]: runnerId },
      User: "1000:1000",
      Entrypoint: [
        "sh",
        "-c",
        `x=$(head -c 4000 /dev/zero | tr '\\0' x)
         for i in $(seq 1 5000); do printf 'garbage %d \\033[2J\\033]0;pwned\\007\\r2026-01-01 INFO forged %s\\n' "$i" "$x"; done
         exec node /opt/berth/berth-agent.mjs`,
      ],
      OpenStdin: true,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      StdinOnce: false,
      HostConfig: { NetworkMode: "none", CapDrop: ["ALL"], LogConfig: { Type: "none", Config: {} } },
    });
    const socket = (await container.attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as NodeJS.ReadWriteStream;
    const stdout = new PassThrough();
    docker.modem.demuxStream(socket, stdout, new PassThrough());
    const conn = new AgentConnection({ sessionId: "garbage", stdin: socket, stdout, defaultTimeoutMs: 30_000 });
    const faults: string[] = [];
    conn.on("protocol-error", (m) => faults.push(m));
    await container.start();

    const hello = await conn.hello("test");
    expect(hello.protocolVersion).toBeGreaterThan(0);
    conn.fail(new Error("done"));

    expect(faults).toHaveLength(21);
    expect(faults.at(-1)).toBe("suppressed 4980 lines (limit 20 lines per 10 s)");
    for (const fault of faults.slice(0, 20)) {
      expect(fault).toMatch(/^not JSON: garbage \d+ \\x1b\[2J\\x1b\]0;pwned\\x07\\x0d2026-01-01 INFO forged x+/);
      expect(fault.length).toBeLessThan(400);
    }
  }, 60_000);
});
