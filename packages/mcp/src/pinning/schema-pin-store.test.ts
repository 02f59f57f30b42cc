import { describe, expect, it } from "vitest";
import {
  InMemorySchemaPinStore,
  SchemaPinError,
  acceptToolSchema,
  canonicalJson,
  observeToolSchema,
  toolSchemaHash,
} from ".";

describe("toolSchemaHash", () => {
  it("ignores key order and changes with description or schema", () => {
    const a = toolSchemaHash({
      description: "d",
      inputSchema: { type: "object", properties: { x: { type: "string" } } },
    });
    const b = toolSchemaHash({
      inputSchema: { properties: { x: { type: "string" } }, type: "object" },
      description: "d",
    });
    expect(a).toBe(b);
    expect(toolSchemaHash({ description: "d2", inputSchema: { type: "object" } })).not.toBe(
      toolSchemaHash({ description: "d", inputSchema: { type: "object" } }),
    );
    expect(toolSchemaHash({ description: "d", inputSchema: { type: "object", required: ["x"] } })).not.toBe(
      toolSchemaHash({ description: "d", inputSchema: { type: "object" } }),
    );
  });

  it("canonical JSON sorts keys and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: [true, null], c: undefined })).toBe('{"a":[true,null],"b":1}');
  });
});

describe("schema pins", () => {
  const h1 = "1".repeat(64);
  const h2 = "2".repeat(64);
  const h3 = "3".repeat(64);

  it("accepts on first sight, holds on change, releases when accepted", async () => {
    const store = new InMemorySchemaPinStore();
    expect((await observeToolSchema(store, "s", "echo", h1)).status).toBe("accepted");
    expect((await observeToolSchema(store, "s", "echo", h1)).status).toBe("accepted");
    const changed = await observeToolSchema(store, "s", "echo", h2);
    expect(changed).toMatchObject({ status: "held", schemaHash: h2, acceptedHash: h1 });
    await acceptToolSchema(store, "s", "echo", h2);
    expect((await observeToolSchema(store, "s", "echo", h2)).status).toBe("accepted");
  });

  it("refuses to accept a hash other than the one offered now", async () => {
    const store = new InMemorySchemaPinStore();
    await observeToolSchema(store, "s", "echo", h1);
    await observeToolSchema(store, "s", "echo", h2);
    await expect(acceptToolSchema(store, "s", "echo", h3)).rejects.toMatchObject({ code: "mcp_pin_mismatch" });
    await expect(acceptToolSchema(store, "s", "nope", h3)).rejects.toBeInstanceOf(SchemaPinError);
    expect((await store.get("s", "echo"))?.acceptedHash).toBe(h1);
  });

  it("going back to the accepted schema releases the hold", async () => {
    const store = new InMemorySchemaPinStore();
    await observeToolSchema(store, "s", "echo", h1);
    await observeToolSchema(store, "s", "echo", h2);
    expect((await observeToolSchema(store, "s", "echo", h1)).status).toBe("accepted");
  });
});
