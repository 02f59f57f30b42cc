import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import type { AgentHelloResult } from "@berth/protocol";
import { AgentConnection, boundLine, demuxDockerStream } from "../agent-connection";
import type { AttachedAgent } from "../driver/session-state";
import { SandboxError } from "../errors";
import {
  HOME_DIR,
  SANDBOX_USER,
  WORKSPACE_DIR,
  WORKSPACE_USER,
  hardenedHostConfig,
  type SandboxLimits,
} from "./hardened-host-config";
import { errorMessage, statusCode } from "./docker-errors";

const STDERR_TAIL_BYTES = 4096;

/** A started container with its agent handshaken over the attached stdio. */
export interface DockerAttached extends AttachedAgent {
  container: Docker.Container;
  containerName: string;
  volumeName: string;
  egress: boolean;
  socket: NodeJS.ReadWriteStream;
  hello: AgentHelloResult;
  createdAt: Date;
  readyAt: Date;
  stderrTail: string;
  /** Who is told when the stream ends: the pool while warm, the session once acquired. */
  onEnd: () => void;
}

export interface ContainerLauncherOptions {
  docker: Docker;
  image: string;
  limits: SandboxLimits;
  /** The network an egress container joins; the others get none. */
  egressNetwork: string;
  callTimeoutMs: number;
  handshakeTimeoutMs: number;
  runnerVersion: string | undefined;
  warn: (message: string, error: unknown) => void;
}

/** A container to start: its name, labels and workspace. */
export interface LaunchSpec {
  name: string;
  labels: Record<string, string>;
  volumeName: string;
  egress: boolean;
  /** For errors and the agent connection's messages (`pool` for a warm container). */
  sessionId: string;
}

/** The existing container to re-attach to after a runner restart. */
export interface AdoptSpec {
  container: Docker.Container;
  containerId: string;
  containerName: string;
  volumeName: string;
  egress: boolean;
  sessionId: string;
}

function destroySocket(socket: NodeJS.ReadWriteStream): void {
  (socket as NodeJS.ReadWriteStream & { destroy?: () => void }).destroy?.();
}

/** Creates, attaches to and removes hardened sandbox containers; knows nothing about sessions. */
export class ContainerLauncher {
  constructor(private readonly opts: ContainerLauncherOptions) {}

  async start(spec: LaunchSpec): Promise<DockerAttached> {
    const { name, labels, volumeName, egress, sessionId } = spec;
    const network = egress ? this.opts.egressNetwork : "none";
    let container: Docker.Container;
    try {
      container = await this.opts.docker.createContainer({
        name,
        Image: this.opts.image,
        Labels: labels,
        User: SANDBOX_USER,
        WorkingDir: WORKSPACE_DIR,
        Hostname: "berth",
        // The agent starts as root and needs to know whom to run workspace code as (the image says so too).
        Env: [`HOME=${HOME_DIR}`, `BERTH_WORKSPACE_USER=${WORKSPACE_USER}`],
        // The agent speaks over stdin/stdout; StdinOnce false keeps stdin open across re-attaches.
        OpenStdin: true,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        StdinOnce: false,
        Tty: false,
        NetworkDisabled: !egress,
        HostConfig: hardenedHostConfig({ volumeName, limits: this.opts.limits, network }),
      });
    } catch (error) {
      throw new SandboxError({
        sessionId,
        reason: "docker",
        message: `Docker could not create the sandbox for session ${sessionId}: ${errorMessage(error)}`,
        cause: error,
      });
    }
    try {
      return await this.attachAndHello(
        { container, containerId: container.id, containerName: name, volumeName, egress, sessionId },
        false,
      );
    } catch (error) {
      await container.remove({ force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** Re-attaches to a running container a previous runner left (StdinOnce false kept its stdin open). */
  adopt(spec: AdoptSpec): Promise<DockerAttached> {
    return this.attachAndHello(spec, true);
  }

  /** Attach must come before start, or the agent's first bytes are lost; adoption attaches to a running one. */
  private async attachAndHello(spec: AdoptSpec, running: boolean): Promise<DockerAttached> {
    const { container, sessionId } = spec;
    const socket = (await container.attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as NodeJS.ReadWriteStream;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    demuxDockerStream(socket, stdout, stderr);
    const endAll = () => {
      stdout.end();
      stderr.end();
    };
    socket.once("end", endAll);
    socket.once("close", endAll);
    socket.on("error", endAll);
    const conn = new AgentConnection({ sessionId, stdin: socket, stdout, defaultTimeoutMs: this.opts.callTimeoutMs });
    const attached: DockerAttached = {
      container,
      containerId: spec.containerId,
      containerName: spec.containerName,
      volumeName: spec.volumeName,
      egress: spec.egress,
      socket,
      conn,
      hello: undefined as unknown as AgentHelloResult,
      createdAt: new Date(),
      readyAt: new Date(),
      stderrTail: "",
      onEnd: () => undefined,
    };
    stderr.on("data", (chunk: Buffer) => {
      attached.stderrTail = (attached.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    conn.on("end", () => attached.onEnd());
    try {
      if (running)
        socket.write("\n"); // ends any half line a previous runner left in the agent's stdin
      else await container.start();
      attached.hello = await conn.hello(this.opts.runnerVersion, { timeoutMs: this.opts.handshakeTimeoutMs });
      attached.readyAt = new Date();
      return attached;
    } catch (error) {
      conn.fail(error instanceof Error ? error : new Error(String(error)));
      destroySocket(socket);
      const tail = attached.stderrTail.trim();
      const reason = SandboxError.isSandboxError(error) ? error.reason : "docker";
      throw new SandboxError({
        sessionId,
        reason: reason === "not_running" || reason === "timeout" ? "protocol" : reason,
        message: `Sandbox for session ${sessionId} failed its handshake: ${errorMessage(error)}${tail ? `; agent stderr: ${boundLine(tail, STDERR_TAIL_BYTES)}` : ""}`,
        cause: error,
      });
    }
  }

  /** Removes the container (its volume is the caller's); a container already gone is no error. */
  async dispose(attached: DockerAttached): Promise<void> {
    attached.onEnd = () => undefined;
    attached.conn.fail(new Error("sandbox disposed"));
    await attached.container.remove({ force: true }).catch((error: unknown) => {
      if (statusCode(error) !== 404)
        this.opts.warn(`could not remove container ${attached.containerId}: ${errorMessage(error)}`, error);
    });
    destroySocket(attached.socket);
  }

  /** Detaches without stopping: the agent keeps running for the next runner to adopt. */
  detach(attached: DockerAttached): void {
    destroySocket(attached.socket);
  }
}
