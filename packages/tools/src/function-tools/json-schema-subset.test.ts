import { describe, expect, it } from "vitest";
import { checkJsonSchema, validateJsonSchema, type JsonSchema } from "./json-schema-subset";

const schema: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, description: "file to count" },
    count: { type: "integer", minimum: 1, maximum: 100, default: 10 },
    mode: { enum: ["lines", "words"] },
    tags: { type: "array", items: { type: "string" }, maxItems: 3 },
    options: { type: "object", properties: { deep: { type: "boolean" } }, additionalProperties: false },
  },
  required: ["path"],
  additionalProperties: false,
};

const issuesOf = (value: unknown) => {
  const result = validateJsonSchema(schema, value);
  return result.ok ? [] : result.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
};

describe("validateJsonSchema", () => {
  it("names the field, what it expected and the bad value", () => {
    expect(issuesOf({ path: "a.txt", count: "x" })).toEqual(['count: expected integer, got "x"']);
    expect(issuesOf({ path: "a.txt", count: 1.5 })).toEqual(["count: expected integer, got 1.5"]);
    expect(issuesOf({ path: "a.txt", count: 0 })).toEqual(["count: must be at least 1 (got 0)"]);
    expect(issuesOf({ path: "a.txt", mode: "bytes" })).toEqual(['mode: expected one of "lines", "words", got "bytes"']);
    expect(issuesOf({ path: "a.txt", options: { deep: "yes" } })).toEqual(['options.deep: expected boolean, got "yes"']);
  });

  it("reports a missing required field and an undeclared one", () => {
    expect(issuesOf({})).toEqual(["path: required (expected string)"]);
    expect(issuesOf({ path: "a", colour: "red" })).toEqual(["colour: not a declared parameter (declared: path, count, mode, tags, options)"]);
  });

  it("lists every problem at once", () => {
    expect(issuesOf({ path: "", count: "x", tags: ["a", 2] })).toEqual([
      "path: must be at least 1 characters (got 0)",
      'count: expected integer, got "x"',
      "tags.1: expected string, got 2",
    ]);
  });

  it("fills in defaults and keeps what was given", () => {
    expect(validateJsonSchema(schema, { path: "a.txt" })).toEqual({ ok: true, value: { path: "a.txt", count: 10 } });
    expect(validateJsonSchema(schema, { path: "a.txt", count: 3 })).toEqual({ ok: true, value: { path: "a.txt", count: 3 } });
  });

  it("tolerates weak models: an array as JSON text, a lone string for an array, an object as JSON text", () => {
    expect(validateJsonSchema(schema, { path: "a", tags: '["x","y"]' })).toMatchObject({ ok: true, value: { tags: ["x", "y"] } });
    expect(validateJsonSchema(schema, { path: "a", tags: "x" })).toMatchObject({ ok: true, value: { tags: ["x"] } });
    expect(validateJsonSchema(schema, { path: "a", options: '{"deep":true}' })).toMatchObject({ ok: true, value: { options: { deep: true } } });
  });

  it("counts an integer as a number, not the reverse", () => {
    const numbers: JsonSchema = { type: "object", properties: { n: { type: "number" } } };
    expect(validateJsonSchema(numbers, { n: 2 }).ok).toBe(true);
    expect(validateJsonSchema(numbers, { n: 2.5 }).ok).toBe(true);
  });
});

describe("checkJsonSchema", () => {
  it("accepts the subset and ignores annotations", () => {
    expect(checkJsonSchema(schema, "parameters")).toEqual([]);
    expect(checkJsonSchema({ type: "object", title: "t", properties: { at: { type: "string", format: "date-time" } } }, "parameters")).toEqual([]);
  });

  it("refuses assertions it would not check, naming where", () => {
    const problems = checkJsonSchema({ type: "object", properties: { id: { type: "string", pattern: "^[a-z]+$" } } }, "parameters");
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^parameters\.properties\.id\.pattern: unsupported JSON Schema keyword/);
    expect(checkJsonSchema({ oneOf: [] }, "parameters")[0]).toMatch(/^parameters\.oneOf: unsupported/);
  });

  it("names a malformed keyword and its value", () => {
    expect(checkJsonSchema({ type: "int" }, "parameters")).toEqual([
      'parameters.type: must be one of object, array, string, number, integer, boolean, null or a list of them (got "int")',
    ]);
    expect(checkJsonSchema({ type: "object", required: "path" }, "p")).toEqual(['p.required: must be a list of property names (got "path")']);
    expect(checkJsonSchema({ type: "array", items: { maxItems: -1 } }, "p")).toEqual(["p.items.maxItems: must be a whole number ≥ 0 (got -1)"]);
  });
});
