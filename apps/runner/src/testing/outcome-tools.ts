import { AppError } from "@berth/protocol";
import type { ToolCallInput, ToolCallOutcome } from "../tools/tool-call-input";
import type { ToolService } from "../tools/tool-service";

/**
 * A tool service behind its interface, for the tests of what answers a tool call (the route, its fast path, a peer
 * link): each tool name is one kind of outcome. `missing` is a 404, `broken` a 500 whose message never reaches the
 * client, `park` a 202, `bigint` a reply that cannot be serialized, `hang` waits until its call is aborted, `slow`
 * answers after 300 ms; any other tool succeeds with `echo` of its input as the output. `calls` holds every input.
 */
export function outcomeTools(echo: (input: ToolCallInput) => unknown): { tools: Pick<ToolService, "call">; calls: ToolCallInput[] } {
  const calls: ToolCallInput[] = [];
  const tools: Pick<ToolService, "call"> = {
    async call(input): Promise<ToolCallOutcome> {
      calls.push(input);
      if (input.tool === "missing") throw new AppError({ code: "not_found", message: `No tool ${input.tool}` });
      if (input.tool === "broken") throw new Error("disk on fire (never shown to the client)");
      if (input.tool === "bigint") return { kind: "result", result: { ok: true, output: "", details: { n: 1n } } };
      if (input.tool === "park") return { kind: "parked", approvalId: "ap_1", text: "bash rm", sha256: "ab".repeat(32), expiresAt: "2026-12-02T17:00:00.000Z" };
      if (input.tool === "hang") await new Promise((resolve) => input.signal?.addEventListener("abort", resolve));
      if (input.tool === "slow") await new Promise((resolve) => setTimeout(resolve, 300));
      return { kind: "result", result: { ok: true, output: JSON.stringify(echo(input)) } };
    },
  };
  return { tools, calls };
}
