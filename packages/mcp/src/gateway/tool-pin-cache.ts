import type { McpToolPin } from "@berth/protocol";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { acceptToolSchema, observeToolSchema, toolSchemaHash } from "../pinning";
import type { SchemaPinStore } from "../pinning";
import type { UpstreamTool } from "./mcp-tool-projection";

function pinKey(serverId: string, toolName: string): string {
  return `${serverId}\u0000${toolName}`;
}

/**
 * The accepted schema hash of every tool seen, kept beside the pin store so projection stays synchronous.
 * Each method that can change an acceptance calls `onChange` (the gateway's generation, which its memo reads).
 */
export class ToolPinCache {
  readonly #accepted = new Map<string, string>();

  constructor(
    private readonly pins: SchemaPinStore,
    private readonly onChange: () => void,
  ) {}

  acceptedHash(serverId: string, toolName: string): string {
    return this.#accepted.get(pinKey(serverId, toolName)) ?? "";
  }

  /** Every listing: hash each tool and record it against its pin (first sight accepts, a change holds). */
  async observe(serverId: string, tools: Tool[]): Promise<UpstreamTool[]> {
    const out: UpstreamTool[] = [];
    for (const tool of tools) {
      const inputSchema = tool.inputSchema as Record<string, unknown>;
      const description = tool.description ?? "";
      const schemaHash = toolSchemaHash({ description, inputSchema });
      const pin = await observeToolSchema(this.pins, serverId, tool.name, schemaHash);
      this.#accepted.set(pinKey(serverId, tool.name), pin.acceptedHash);
      out.push({
        name: tool.name,
        description,
        inputSchema,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Record<string, unknown> } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
        schemaHash,
      });
    }
    this.onChange();
    return out;
  }

  /** Acceptances other runners may have made since. */
  async reload(serverIds: ReadonlySet<string>): Promise<void> {
    for (const serverId of serverIds) {
      for (const pin of await this.pins.list(serverId)) {
        const key = pinKey(pin.serverId, pin.toolName);
        if (this.#accepted.get(key) !== pin.acceptedHash) {
          this.#accepted.set(key, pin.acceptedHash);
          this.onChange();
        }
      }
    }
  }

  /** An operator accepts the reviewed version of a changed tool. */
  async accept(serverId: string, toolName: string, schemaHash: string): Promise<McpToolPin> {
    const pin = await acceptToolSchema(this.pins, serverId, toolName, schemaHash);
    this.#accepted.set(pinKey(serverId, toolName), pin.acceptedHash);
    this.onChange();
    return pin;
  }
}
