import { ApprovalRequestSchema, formatIssues } from "@berth/protocol";
import type { ApprovalService } from "@berth/tools";
import type { ClusterBus } from "./cluster-bus";

export const APPROVAL_CHANNEL = "approval";

/**
 * Approvals across runners: every request this runner decides, cancels or expires goes out on the `approval`
 * channel, and one decided elsewhere releases the callers waiting here (REST `?wait=`, MCP's approval wait) at
 * once. Only waiters: the socket event `approval:decided` already reached every runner's sockets through the
 * socket.io Redis adapter from the runner that decided it. Resolves once subscribed; returns the unsubscribe.
 */
export async function shareApprovalDecisions(bus: ClusterBus, approvals: ApprovalService, log: (line: string) => void): Promise<() => Promise<void>> {
  const unsubscribe = await bus.subscribe(APPROVAL_CHANNEL, (bytes) => {
    let json: unknown;
    try {
      json = JSON.parse(bytes.toString("utf8"));
    } catch {
      return log(`approval: a message that is not JSON (${bytes.length} bytes) ignored`);
    }
    const parsed = ApprovalRequestSchema.safeParse(json);
    if (!parsed.success) return log(`approval: a message ignored: ${formatIssues(parsed.error, "message")}`);
    // Our own decisions come back too: their waiters are released already, so this finds none.
    approvals.notifyDecided(parsed.data, { emit: false });
  });
  const stopSending = approvals.on("approval:decided", (request) => {
    bus.publish(APPROVAL_CHANNEL, JSON.stringify(request)).catch((error: unknown) => {
      log(`approval ${request.id} (${request.status}) not sent to the other runners: ${(error as Error).message}`);
    });
  });
  return async () => {
    stopSending();
    await unsubscribe();
  };
}
