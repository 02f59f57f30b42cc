import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ProcessSubscribeSchema, RunSubscribeSchema, TerminalOpenSchema, TerminalResizeSchema } from "@berth/protocol";
import { arbitraryFor, mutatedFor } from "./zod-arbitrary";

// Every zod type the mapper knows, with the constraints it reads.
const Everything = z.strictObject({
  s: z.string().min(2).max(5),
  n: z.number().int().min(1).max(9),
  f: z.number().min(0).max(1),
  e: z.enum(["a", "b"]),
  l: z.literal("x"),
  a: z.array(z.boolean()).max(2),
  u: z.union([z.string().max(3), z.number().int().min(0).max(3)]),
  o: z.string().max(4).optional(),
  d: z.number().int().min(0).max(5).default(0),
  r: z.record(z.string().max(4), z.number().int().min(0).max(2)),
  nested: z.object({ id: z.string().regex(/^ses_[a-z]{3}$/) }),
});

describe("arbitraryFor", () => {
  for (const [name, schema] of Object.entries({
    Everything,
    TerminalOpenSchema,
    TerminalResizeSchema,
    ProcessSubscribeSchema,
    RunSubscribeSchema,
  })) {
    it(`generates values ${name} accepts`, () => {
      fc.assert(
        fc.property(arbitraryFor(schema), (value) => {
          const parsed = schema.safeParse(value);
          expect(parsed.error?.issues ?? []).toEqual([]);
        }),
        { numRuns: 200, seed: 7 },
      );
    });
  }
});

describe("mutatedFor", () => {
  const Strict = z.strictObject({ id: z.string().min(1).max(10), count: z.number().int().min(0).max(5) });
  for (const mutation of ["wrong-type", "missing-field", "extra-field", "huge-string", "huge-number"] as const) {
    it(`a ${mutation} value is refused by a strict schema of bounded required fields`, () => {
      const cases = fc.sample(
        mutatedFor(Strict).filter((c) => c.mutation === mutation),
        { seed: 11, numRuns: 50 },
      );
      expect(cases).toHaveLength(50);
      for (const { value } of cases)
        expect(Strict.safeParse(value).success, JSON.stringify(value).slice(0, 80)).toBe(false);
    });
  }

  it("nests a deep-nesting value thousands of levels deep and puts a lone surrogate in a string", () => {
    const [deep] = fc.sample(
      mutatedFor(Strict).filter((c) => c.mutation === "deep-nesting"),
      { seed: 3, numRuns: 1 },
    );
    const depthOf = (node: unknown): number =>
      typeof node === "object" && node !== null ? 1 + Math.max(0, ...Object.values(node).map(depthOf)) : 0;
    expect(depthOf(deep!.value)).toBeGreaterThan(1_000);
    const [lone] = fc.sample(
      mutatedFor(z.strictObject({ name: z.string().min(1) })).filter((c) => c.mutation === "lone-surrogate"),
      { seed: 5, numRuns: 1 },
    );
    expect((lone!.value as { name: string }).name).toMatch(/\ud800/);
  });
});
