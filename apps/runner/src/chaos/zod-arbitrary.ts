import fc from "fast-check";
import type { z } from "zod";

/** Longest string or array a valid-shaped value gets when its schema sets no maximum (keeps cases fast). */
const OPEN_MAX = 24;
/** How deep `deep` nests: past what a recursive walker without a limit survives, within what JSON.parse does. */
const DEEP = 2_000;

type Def = { type: string; [key: string]: unknown };
type Check = {
  check?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
  pattern?: RegExp;
};

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;
const checksOf = (def: Def): Check[] =>
  ((def.checks as { _zod: { def: Check } }[] | undefined) ?? []).map((c) => c._zod.def);

/**
 * Values shaped as `schema` describes, for the zod types the protocol uses (object, string with its length,
 * pattern and format, number and int ranges, boolean, enum, literal, array, tuple, union, optional, nullable,
 * default, record, pipe/transform, lazy). A refinement beyond those (superRefine, a pattern cut to a maximum) may
 * make a value invalid: these are inputs to fuzz with, not proofs of validity.
 */
export function arbitraryFor(schema: z.ZodType, depth = 4): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const inner = (s: unknown) => arbitraryFor(s as z.ZodType, depth - 1);
  switch (def.type) {
    case "string":
      return stringArbitrary(checksOf(def));
    case "number":
      return numberArbitrary(checksOf(def));
    case "bigint":
      return fc.bigInt();
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "undefined":
    case "void":
      return fc.constant(undefined);
    case "enum":
      return fc.constantFrom(...Object.values(def.entries as Record<string, string | number>));
    case "literal":
      return fc.constantFrom(...(def.values as unknown[]));
    case "array": {
      const checks = checksOf(def);
      const minLength = checks.find((c) => c.check === "min_length")?.minimum ?? 0;
      const maxLength = checks.find((c) => c.check === "max_length")?.maximum ?? Math.max(minLength, depth > 0 ? 3 : 0);
      return depth <= 0 && minLength === 0
        ? fc.constant([])
        : fc.array(inner(def.element), { minLength, maxLength: Math.min(maxLength, minLength + 3) });
    }
    case "tuple":
      return fc.tuple(...(def.items as unknown[]).map(inner));
    case "union":
      return fc.oneof(...(def.options as unknown[]).map(inner));
    case "intersection":
      return fc
        .tuple(inner(def.left), inner(def.right))
        .map(([a, b]) => (isPlainObject(a) && isPlainObject(b) ? { ...a, ...b } : a));
    case "optional":
      return fc.option(inner(def.innerType), { nil: undefined, freq: 3 });
    case "nullable":
      return fc.option(inner(def.innerType), { nil: null, freq: 3 });
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return fc.option(inner(def.innerType), { nil: undefined, freq: 3 });
    case "pipe":
      // A transform's output says nothing of its input; the input side is what a client sends.
      return defOf(def.in).type === "transform" ? inner(def.out) : inner(def.in);
    case "lazy":
      return depth <= 0 ? fc.constant(null) : inner((def.getter as () => unknown)());
    case "record":
      return fc.dictionary(keyArbitrary(def.keyType), inner(def.valueType), { maxKeys: depth > 0 ? 3 : 0 });
    case "object": {
      const shape = def.shape as Record<string, z.ZodType>;
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const [key, field] of Object.entries(shape)) {
        model[key] = inner(field);
        if (!isOptional(field)) required.push(key);
      }
      return fc.record(model, { requiredKeys: required }).map((value) => dropUndefined(value));
    }
    default:
      // unknown, any, custom, instanceof, date, …: any JSON value.
      return fc.jsonValue({ maxDepth: Math.max(0, depth - 1) });
  }
}

function stringArbitrary(checks: Check[]): fc.Arbitrary<string> {
  const minLength = Math.max(
    0,
    ...checks
      .filter((c) => c.check === "min_length" || c.check === "length_equals")
      .map((c) => c.minimum ?? c.value ?? 0),
  );
  const declaredMax = checks.find((c) => c.check === "max_length" || c.check === "length_equals");
  const maxLength = declaredMax
    ? (declaredMax.maximum ?? declaredMax.value ?? OPEN_MAX)
    : Math.max(minLength, OPEN_MAX);
  const format = checks.find((c) => c.check === "string_format");
  const fit = (s: string) => s.slice(0, maxLength).padEnd(minLength, "a");
  if (format?.format === "regex" && format.pattern) return fc.stringMatching(format.pattern).map(fit);
  if (format?.format === "uuid" || format?.format === "guid") return fc.uuid();
  if (format?.format === "email") return fc.emailAddress();
  if (format?.format === "url") return fc.webUrl();
  if (format?.format === "datetime") return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  // zod counts UTF-16 code units, fast-check graphemes: cut and pad to the schema's count.
  return fc.string({ minLength, maxLength: Math.min(maxLength, minLength + OPEN_MAX), unit: "grapheme" }).map(fit);
}

function numberArbitrary(checks: Check[]): fc.Arbitrary<number> {
  const isInt = checks.some((c) => c.check === "number_format" && /int/.test(c.format ?? ""));
  const low = checks.find((c) => c.check === "greater_than");
  const high = checks.find((c) => c.check === "less_than");
  if (isInt) {
    const min = low ? Math.ceil(low.value!) + (low.inclusive ? 0 : 1) : -1_000_000;
    const max = high ? Math.floor(high.value!) - (high.inclusive ? 0 : 1) : 1_000_000;
    return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) });
  }
  return fc.double({
    min: low?.value ?? -1e6,
    max: high?.value ?? 1e6,
    noNaN: true,
    noDefaultInfinity: true,
    minExcluded: low ? !low.inclusive : false,
    maxExcluded: high ? !high.inclusive : false,
  });
}

function keyArbitrary(schema: unknown): fc.Arbitrary<string> {
  const def = defOf(schema);
  if (def.type === "enum") return fc.constantFrom(...Object.values(def.entries as Record<string, string>));
  if (def.type === "string") return stringArbitrary(checksOf(def)).filter((k) => k !== "__proto__");
  return fc.string({ maxLength: 8 });
}

function isOptional(schema: z.ZodType): boolean {
  const type = defOf(schema).type;
  if (type === "optional" || type === "default" || type === "prefault" || type === "catch") return true;
  return type === "pipe" && isOptional(defOf(schema).in as z.ZodType);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function dropUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

/** How a valid-shaped value is broken. */
export const MUTATIONS = [
  "wrong-type",
  "missing-field",
  "extra-field",
  "lone-surrogate",
  "huge-string",
  "huge-number",
  "deep-nesting",
  "none",
] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** Values a field should never hold: other types, and the numbers and strings parsers and databases trip on. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -1e308,
    2 ** 53 + 1,
    0.5,
    "",
    [],
    {},
    "\ud800",
    "a\udfffb",
    "__proto__",
  ),
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer(), { maxLength: 3 }),
);

/**
 * Valid-shaped values of `schema`, each broken one way (MUTATIONS) at one place: a field of the wrong type, a
 * required field gone, an unknown one added, a lone UTF-16 surrogate, a megabyte string, a number past any
 * limit, or `DEEP` levels of nesting. `none` keeps some valid-shaped values in the mix, so the paths after
 * validation are fuzzed too.
 */
export function mutatedFor(schema: z.ZodType): fc.Arbitrary<{ mutation: Mutation; value: unknown }> {
  return fc
    .tuple(arbitraryFor(schema), fc.constantFrom(...MUTATIONS), fc.nat(), wrongValue)
    .map(([valid, mutation, at, wrong]) => ({
      mutation,
      // A copy: fast-check may hand out the same object again, and mutations work in place.
      value: mutate(structuredClone(valid), mutation, at, wrong),
    }));
}

function mutate(value: unknown, mutation: Mutation, at: number, wrong: unknown): unknown {
  if (mutation === "none") return value;
  const objects = placesOf(value).filter((p) => isPlainObject(p.holder) || Array.isArray(p.holder));
  if (mutation === "extra-field") {
    const targets = [value, ...objects.map((p) => p.holder[p.key])].filter(isPlainObject);
    if (!targets.length) return { value, unexpected: wrong };
    const target = targets[at % targets.length]!;
    target[`extra_${at % 97}`] = wrong;
    return value;
  }
  const places = placesOf(value);
  if (!places.length) return replacement(mutation, wrong, value);
  const place = places[at % places.length]!;
  if (mutation === "missing-field") {
    if (Array.isArray(place.holder)) place.holder.splice(Number(place.key), 1);
    else delete place.holder[place.key];
    return value;
  }
  place.holder[place.key] = replacement(mutation, wrong, place.holder[place.key]);
  return value;
}

function replacement(mutation: Mutation, wrong: unknown, current: unknown): unknown {
  switch (mutation) {
    case "wrong-type":
      return typeof wrong === typeof current
        ? typeof current === "string"
          ? 12345
          : "not-a-" + typeof current
        : wrong;
    case "lone-surrogate":
      return `${typeof current === "string" ? current.slice(0, 8) : "x"}\ud800${typeof current === "string" ? current.slice(8) : ""}`;
    case "huge-string":
      return "x".repeat(1024 * 1024);
    case "huge-number":
      return [1e308, -1e308, 2 ** 64, Number.MAX_SAFE_INTEGER + 2][String(current).length % 4];
    case "deep-nesting": {
      let nested: unknown = current ?? 0;
      for (let i = 0; i < DEEP; i++) nested = i % 2 ? { a: nested } : [nested];
      return nested;
    }
    default:
      return wrong;
  }
}

/** Every (holder, key) in a value, parents before children. */
function placesOf(value: unknown): { holder: Record<string, unknown>; key: string }[] {
  const out: { holder: Record<string, unknown>; key: string }[] = [];
  const walk = (node: unknown) => {
    if (!isPlainObject(node) && !Array.isArray(node)) return;
    for (const key of Object.keys(node)) {
      out.push({ holder: node as Record<string, unknown>, key });
      walk((node as Record<string, unknown>)[key]);
    }
  };
  walk(value);
  return out;
}
