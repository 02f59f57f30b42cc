/**
 * The JSON Schema subset a function tool's `parameters` may use (docs/tools.md, Workspace function tools).
 * Small on purpose: every keyword here is checked by the runner before a script runs, and a schema that uses
 * an assertion outside it is refused when the file is scanned, so a tool is never less strict than declared.
 * `pattern` is left out: a regular expression from the workspace is not run in the runner's own process.
 */

export type JsonSchema = Readonly<Record<string, unknown>>;

const TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"] as const;
type JsonType = (typeof TYPES)[number];

/** Keywords that only describe (never checked): allowed anywhere, ignored by validation. `format` is an annotation in JSON Schema 2020-12. */
const ANNOTATIONS = new Set(["title", "description", "default", "examples", "format", "$schema", "$id", "$comment", "deprecated", "readOnly", "writeOnly"]);
const COUNTS = ["minLength", "maxLength", "minItems", "maxItems"] as const;
const BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;
const ASSERTIONS = new Set<string>(["type", "properties", "required", "additionalProperties", "items", "enum", "const", ...COUNTS, ...BOUNDS]);

/** How deep a declared schema may nest (objects in arrays in objects…). */
export const MAX_SCHEMA_DEPTH = 16;

/** One problem with a value: where (a path of property names and indexes) and what. */
export interface JsonSchemaIssue {
  path: (string | number)[];
  message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A value as an error message quotes it: JSON, cut at 80 characters. */
export function previewValue(value: unknown): string {
  const text = value === undefined ? "undefined" : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Problems with a declared schema, each `<path>: <what>` (path from `at`, e.g. `parameters.properties.n.type`).
 * Empty when the schema is within the subset.
 */
export function checkJsonSchema(schema: unknown, at: string, depth = 0): string[] {
  if (!isObject(schema)) return [`${at}: must be a JSON Schema object (got ${previewValue(schema)})`];
  if (depth > MAX_SCHEMA_DEPTH) return [`${at}: nests deeper than ${MAX_SCHEMA_DEPTH} levels`];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    const where = `${at}.${key}`;
    if (ANNOTATIONS.has(key)) continue;
    if (!ASSERTIONS.has(key)) {
      problems.push(`${where}: unsupported JSON Schema keyword (supported: ${[...ASSERTIONS].join(", ")}; annotations such as description and format are ignored)`);
      continue;
    }
    if (key === "type") {
      const types = Array.isArray(value) ? value : [value];
      const bad = types.find((t) => !(TYPES as readonly unknown[]).includes(t));
      if (types.length === 0 || bad !== undefined) problems.push(`${where}: must be one of ${TYPES.join(", ")} or a list of them (got ${previewValue(value)})`);
    } else if (key === "properties") {
      if (!isObject(value)) problems.push(`${where}: must be an object of schemas (got ${previewValue(value)})`);
      else for (const [name, sub] of Object.entries(value)) problems.push(...checkJsonSchema(sub, `${where}.${name}`, depth + 1));
    } else if (key === "required") {
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) problems.push(`${where}: must be a list of property names (got ${previewValue(value)})`);
    } else if (key === "additionalProperties") {
      if (typeof value !== "boolean") problems.push(...checkJsonSchema(value, where, depth + 1));
    } else if (key === "items") {
      problems.push(...checkJsonSchema(value, where, depth + 1));
    } else if (key === "enum") {
      if (!Array.isArray(value) || value.length === 0) problems.push(`${where}: must be a non-empty list (got ${previewValue(value)})`);
    } else if ((COUNTS as readonly string[]).includes(key)) {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0) problems.push(`${where}: must be a whole number ≥ 0 (got ${previewValue(value)})`);
    } else if ((BOUNDS as readonly string[]).includes(key)) {
      if (typeof value !== "number" || !Number.isFinite(value)) problems.push(`${where}: must be a number (got ${previewValue(value)})`);
    }
  }
  return problems;
}

function typeOf(value: unknown): JsonType | "undefined" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string" || typeof value === "boolean" || typeof value === "object") return typeof value as JsonType;
  return "undefined";
}

const matchesType = (value: unknown, type: JsonType): boolean => {
  const actual = typeOf(value);
  return actual === type || (type === "number" && actual === "integer");
};

/**
 * Weak-model tolerance (docs/tools.md): an array or object sent as JSON text is parsed, and a lone string
 * where an array is expected becomes a one-element array. Only when the schema asks for that type alone.
 */
function tolerate(value: unknown, types: readonly JsonType[]): unknown {
  if (typeof value !== "string" || types.includes("string")) return value;
  const wantsArray = types.includes("array");
  if (wantsArray || types.includes("object")) {
    try {
      const parsed: unknown = JSON.parse(value);
      if ((wantsArray && Array.isArray(parsed)) || (types.includes("object") && isObject(parsed))) return parsed;
    } catch {
      // not JSON: fall through
    }
  }
  return wantsArray ? [value] : value;
}

const deepEqual = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Checks `value` against a schema already accepted by checkJsonSchema. Returns the value as the script will
 * get it (missing properties with a `default` filled in, weak-model forms normalised) or every issue found.
 */
export function validateJsonSchema(schema: JsonSchema, value: unknown): { ok: true; value: unknown } | { ok: false; issues: JsonSchemaIssue[] } {
  const issues: JsonSchemaIssue[] = [];
  const out = validateAt(schema, value, [], issues);
  return issues.length === 0 ? { ok: true, value: out } : { ok: false, issues };
}

function validateAt(schema: JsonSchema, input: unknown, path: (string | number)[], issues: JsonSchemaIssue[]): unknown {
  const declared = schema.type === undefined ? [] : ((Array.isArray(schema.type) ? schema.type : [schema.type]) as JsonType[]);
  const value = declared.length > 0 ? tolerate(input, declared) : input;
  const fail = (message: string) => issues.push({ path, message });
  if (declared.length > 0 && !declared.some((type) => matchesType(value, type))) {
    fail(`expected ${declared.join(" or ")}, got ${previewValue(value)}`);
    return value;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) {
    fail(`expected one of ${schema.enum.map(previewValue).join(", ")}, got ${previewValue(value)}`);
  }
  if ("const" in schema && !deepEqual(schema.const, value)) fail(`expected ${previewValue(schema.const)}, got ${previewValue(value)}`);
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) fail(`must be at least ${schema.minLength} characters (got ${length})`);
    if (typeof schema.maxLength === "number" && length > schema.maxLength) fail(`must be at most ${schema.maxLength} characters (got ${length})`);
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) fail(`must be at least ${schema.minimum} (got ${value})`);
    if (typeof schema.maximum === "number" && value > schema.maximum) fail(`must be at most ${schema.maximum} (got ${value})`);
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) fail(`must be greater than ${schema.exclusiveMinimum} (got ${value})`);
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) fail(`must be less than ${schema.exclusiveMaximum} (got ${value})`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) fail(`must have at least ${schema.minItems} items (got ${value.length})`);
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) fail(`must have at most ${schema.maxItems} items (got ${value.length})`);
    if (isObject(schema.items)) {
      const items = schema.items;
      return value.map((item, index) => validateAt(items, item, [...path, index], issues));
    }
    return value;
  }
  if (isObject(value)) return validateObject(schema, value, path, issues);
  return value;
}

function validateObject(schema: JsonSchema, value: Record<string, unknown>, path: (string | number)[], issues: JsonSchemaIssue[]): Record<string, unknown> {
  const properties = isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(properties)) {
    if (name in value) out[name] = validateAt(sub, value[name], [...path, name], issues);
    else if ("default" in sub) out[name] = sub.default;
    else if (required.includes(name)) issues.push({ path: [...path, name], message: `required${sub.type ? ` (expected ${[sub.type].flat().join(" or ")})` : ""}` });
  }
  // A required name with no schema of its own still has to be there.
  for (const name of required) if (!(name in properties) && !(name in value)) issues.push({ path: [...path, name], message: "required" });
  for (const [name, extra] of Object.entries(value)) {
    if (name in properties) continue;
    const additional = schema.additionalProperties;
    if (additional === false) {
      const declared = Object.keys(properties);
      issues.push({ path: [...path, name], message: `not a declared parameter (declared: ${declared.length ? declared.join(", ") : "none"})` });
    } else if (isObject(additional)) out[name] = validateAt(additional, extra, [...path, name], issues);
    else out[name] = extra;
  }
  return out;
}
