import type { McpToolPin, McpToolPinStatus } from "@berth/protocol";

/**
 * Where pins live. The runner backs it with the Prisma model McpToolPin {serverId, toolName, schemaHash,
 * acceptedHash} (unique on serverId + toolName); `InMemorySchemaPinStore` serves tests and single runs.
 */
export interface SchemaPinStore {
  get(serverId: string, toolName: string): Promise<McpToolPin | undefined>;
  list(serverId: string): Promise<McpToolPin[]>;
  upsert(pin: McpToolPin): Promise<void>;
}

export class InMemorySchemaPinStore implements SchemaPinStore {
  readonly #pins = new Map<string, McpToolPin>();

  async get(serverId: string, toolName: string): Promise<McpToolPin | undefined> {
    const pin = this.#pins.get(pinKey(serverId, toolName));
    return pin ? { ...pin } : undefined;
  }

  async list(serverId: string): Promise<McpToolPin[]> {
    return [...this.#pins.values()].filter((p) => p.serverId === serverId).map((p) => ({ ...p }));
  }

  async upsert(pin: McpToolPin): Promise<void> {
    this.#pins.set(pinKey(pin.serverId, pin.toolName), { ...pin });
  }
}

function pinKey(serverId: string, toolName: string): string {
  return JSON.stringify([serverId, toolName]);
}

export function pinStatusOf(pin: Pick<McpToolPin, "schemaHash" | "acceptedHash">): McpToolPinStatus {
  return pin.schemaHash === pin.acceptedHash ? "accepted" : "held";
}

/**
 * Records what a server offers now. First sight is trusted (accepted); a hash that differs from the
 * accepted one holds the tool until `acceptToolSchema`. Going back to the accepted hash releases it.
 */
export async function observeToolSchema(
  store: SchemaPinStore,
  serverId: string,
  toolName: string,
  schemaHash: string,
): Promise<McpToolPin & { status: McpToolPinStatus }> {
  const existing = await store.get(serverId, toolName);
  const pin: McpToolPin = existing
    ? { ...existing, schemaHash }
    : { serverId, toolName, schemaHash, acceptedHash: schemaHash };
  if (!existing || existing.schemaHash !== schemaHash) await store.upsert(pin);
  return { ...pin, status: pinStatusOf(pin) };
}

export class SchemaPinError extends Error {
  override readonly name = "SchemaPinError";
  constructor(
    readonly code: "mcp_pin_unknown" | "mcp_pin_mismatch",
    message: string,
  ) {
    super(message);
  }
}

/**
 * An operator accepts the version they reviewed. The hash must be the one offered now, so a tool that
 * changed again after the review is not accepted blind.
 */
export async function acceptToolSchema(
  store: SchemaPinStore,
  serverId: string,
  toolName: string,
  schemaHash: string,
): Promise<McpToolPin> {
  const existing = await store.get(serverId, toolName);
  if (!existing) {
    throw new SchemaPinError(
      "mcp_pin_unknown",
      `no pinned tool ${JSON.stringify(toolName)} on server ${JSON.stringify(serverId)}`,
    );
  }
  if (existing.schemaHash !== schemaHash) {
    throw new SchemaPinError(
      "mcp_pin_mismatch",
      `schemaHash must be the current one (${existing.schemaHash}) of tool ${JSON.stringify(toolName)}, got ${schemaHash}`,
    );
  }
  const pin = { ...existing, acceptedHash: schemaHash };
  await store.upsert(pin);
  return pin;
}
