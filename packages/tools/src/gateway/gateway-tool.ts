import { z } from "zod";
import { BuiltinTool, lenientObject, toolFailure } from "@berth/protocol";
import { defineTool, fixedClass, jsonResult, shownClassOf } from "../registry/define-tool";
import { firstSentence, rankCapabilities } from "./rank-capabilities";
import type { ResolvedTool } from "../router/tool-router";

const GatewayInputSchema = z.object({
  op: z.enum(["find", "describe", "call"]).optional(),
  query: z.string().max(1000, "must be at most 1000 characters").optional(),
  capability: z.string().max(200, "must be at most 200 characters").optional(),
  /** Weak models say name or tool for capability. */
  name: z.string().max(200).optional(),
  tool: z.string().max(200).optional(),
  args: lenientObject(z.record(z.string(), z.unknown())).optional(),
  server: z.string().max(200).optional(),
});

/** Normalises what weak models send: capability aliases, and the op inferred when missing. */
export const GatewayArgsSchema = GatewayInputSchema.transform((input) => {
  const capability = input.capability ?? input.name ?? input.tool;
  const op = input.op ?? (capability && input.args !== undefined ? "call" : capability ? "describe" : "find");
  return { op, capability, query: input.query, args: input.args ?? {}, server: input.server };
});
export type GatewayArgs = z.output<typeof GatewayArgsSchema>;

const CapabilityKindSchema = z.enum(["builtin", "mcp", "function"]);

/**
 * What each op returns. A call returns the capability's own result (its outputSchema is in op=describe;
 * an upstream MCP tool's structuredContent passes through exactly as it sent it), so that branch is open.
 */
export const GatewayDetailsSchema = z.union([
  z.object({
    capabilities: z.array(
      z.object({ name: z.string(), kind: CapabilityKindSchema, description: z.string(), actionClass: z.string() }),
    ),
    count: z.number().int(),
    total: z.number().int(),
    /** What keeps capabilities out of the catalogue that the caller should know of (a malformed berth.tools.json). */
    notices: z.array(z.string()).optional(),
  }),
  z.object({
    name: z.string(),
    kind: CapabilityKindSchema,
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    annotations: z.record(z.string(), z.unknown()).optional(),
    actionClass: z.string(),
  }),
  z.record(z.string(), z.unknown()),
]);

function kindOf(tool: ResolvedTool): string {
  return tool.kind;
}

export const gatewayTool = defineTool({
  name: "gateway",
  description:
    "Find, describe and call capabilities that are not listed directly (MCP tools, update_agents_md, function tools). op=find {query} lists matches; op=describe {capability} shows its parameters; op=call {capability, args} runs it under the same approvals as any tool.",
  argsSchema: GatewayArgsSchema,
  resultSchema: GatewayDetailsSchema,
  reachesOthers: true,
  // find/describe read the catalogue; a call is admitted again under the capability's own name.
  classify: fixedClass("read"),
  async run(args, ctx) {
    const host = ctx.host;
    if (!host) return toolFailure("unavailable", "gateway: no tool catalogue in this context");
    const catalogue = host.catalogue().filter((tool) => tool.spec.name !== BuiltinTool.gateway);
    const inServer = (tool: (typeof catalogue)[number]) => !args.server || ("origin" in tool && tool.origin === args.server);
    if (args.op === "find") {
      const visible = catalogue.filter(inServer) as ResolvedTool[];
      const ranked = rankCapabilities(visible, args.query ?? args.capability);
      const notices = host.notices?.() ?? [];
      return jsonResult({
        capabilities: ranked.map((tool) => ({
          name: tool.spec.name,
          kind: kindOf(tool),
          description: firstSentence(tool.spec.description),
          actionClass: shownClassOf(tool.spec),
        })),
        count: ranked.length,
        total: visible.length,
        ...(notices.length > 0 ? { notices } : {}),
      });
    }
    if (!args.capability) return toolFailure("invalid_arguments", `gateway: capability is required for op=${args.op}`);
    const target = catalogue.find((tool) => tool.spec.name === args.capability);
    // Kept out by an allowlist or an active skill: refused by name, never reported unknown.
    const refused = target ? undefined : host.refusal?.(args.capability);
    if (refused) return toolFailure("denied", refused);
    if (!target) return toolFailure("unknown_tool", `gateway: unknown capability: ${args.capability}`);
    if (args.op === "describe") {
      return jsonResult({
        name: target.spec.name,
        kind: target.kind,
        description: target.spec.description,
        parameters: target.spec.parameters,
        ...(target.spec.outputSchema ? { outputSchema: target.spec.outputSchema } : {}),
        ...(target.spec.annotations ? { annotations: target.spec.annotations } : {}),
        actionClass: shownClassOf(target.spec),
      });
    }
    const result = await host.call(target.spec.name, args.args);
    return { ...result, details: { ...result.details, capability: target.spec.name } };
  },
});
