import { randomBytes } from "node:crypto";
import type Docker from "dockerode";
import type { ToolResult } from "@berth/protocol";
import { errorMessage, statusCode } from "./docker-errors";
import { runnerFilter, volumeLabels } from "./sandbox-labels";
import { WorkspaceQuota, formatBytes } from "./workspace-quota";

export interface WorkspaceVolumesOptions {
  docker: Docker;
  runnerId: string;
  warn: (message: string, error?: unknown) => void;
}

/** The named volume per session at /workspace, size-limited by a WorkspaceQuota where one can be enforced. */
export class WorkspaceVolumes {
  /** Set by enableQuota() when the limit can be enforced here. */
  private quota: WorkspaceQuota | null = null;

  constructor(private readonly opts: WorkspaceVolumesOptions) {}

  newName(): string {
    return `berth-ws-${randomBytes(8).toString("hex")}`;
  }

  /** Decides once whether workspaces get their size limit here, and says so when they cannot (never silently). */
  async enableQuota(wanted: { dir: string; sizeBytes: number } | null, localEngine: boolean): Promise<void> {
    if (!wanted || wanted.sizeBytes <= 0) return;
    const reason = await WorkspaceQuota.unavailableReason({ localEngine });
    if (reason)
      this.opts.warn(
        `workspace size limit ${formatBytes(wanted.sizeBytes)} (BERTH_WORKSPACE_SIZE) is not enforced: ${reason}; workspaces can fill the host's disk`,
      );
    else this.quota = new WorkspaceQuota(wanted);
  }

  /** Creates the volume unless it exists; `fresh` says it cannot exist yet (a name generated here). */
  async ensure(name: string, fresh = false): Promise<void> {
    const { docker, runnerId } = this.opts;
    if (!fresh) {
      const volume = await docker
        .getVolume(name)
        .inspect()
        .catch(() => null);
      if (volume) {
        // A size-limited workspace: its image is mounted again (after a reboot, say) before Docker binds it.
        if (this.quota && volume.Options?.["device"] === this.quota.mountPath(name)) await this.quota.ensure(name);
        return;
      }
    }
    if (!this.quota) {
      await docker.createVolume({ Name: name, Labels: volumeLabels(runnerId) });
      return;
    }
    await this.quota.ensure(name);
    await docker.createVolume({
      Name: name,
      Driver: "local",
      DriverOpts: this.quota.volumeOptions(name),
      Labels: volumeLabels(runnerId),
    });
  }

  /** True when the volume was removed here; a volume already gone is false and no warning. */
  async remove(name: string): Promise<boolean> {
    let removed = false;
    try {
      await this.opts.docker.getVolume(name).remove();
      removed = true;
    } catch (error) {
      if (statusCode(error) !== 404) {
        this.opts.warn(`could not remove volume ${name}: ${errorMessage(error)}`, error);
        return false;
      }
    }
    // The volume only bound the image's mount: unmount it and give the disk back.
    await this.quota
      ?.remove(name)
      .catch((error: unknown) =>
        this.opts.warn(`could not remove the workspace image of ${name}: ${errorMessage(error)}`, error),
      );
    return removed;
  }

  /** Every volume this runner labelled. */
  async list(): Promise<string[]> {
    const { Volumes } = await this.opts.docker.listVolumes({ filters: runnerFilter(this.opts.runnerId) });
    return (Volumes ?? []).map((v) => v.Name);
  }

  /** Workspace images on disk (a volume's may outlive it after a crash between the two removals). */
  listImages(): Promise<string[]> {
    return this.quota ? this.quota.list() : Promise.resolve([]);
  }

  async removeImage(name: string): Promise<void> {
    await this.quota?.remove(name);
  }

  /**
   * ENOSPC in a limited workspace is the limit, not a fault: a failed write says which limit and is recorded as
   * `workspace_full`; a shell's own "No space left on device" stays in its stderr and the trace notes the limit.
   */
  explainFullWorkspace(result: ToolResult): ToolResult {
    if (!this.quota) return result;
    const limit = formatBytes(this.quota.sizeBytes);
    if (!result.ok && result.error && /ENOSPC|no space left on device/i.test(result.error.message)) {
      const message = `workspace is full (limit ${limit}): ${result.error.message}`;
      return {
        ...result,
        output: result.output === result.error.message ? message : `${message}\n${result.output}`,
        error: { code: "workspace_full", message },
      };
    }
    // bash exec's stderr, run_script's stderrTail.
    const stderr = result.details?.["stderr"] ?? result.details?.["stderrTail"];
    if (typeof stderr === "string" && /no space left on device/i.test(stderr))
      return { ...result, trace: { ...result.trace, noSpace: `no space left on device (workspace limit ${limit})` } };
    return result;
  }
}
