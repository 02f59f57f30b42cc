import { expect, it } from "vitest";
import { SHORT_SCALE, formatTable, runChaos } from "./chaos-campaign";

// The bounded part of `npm run chaos`: one SIGKILL under two followers, 5 × 20 calls, 10 cycles, a few hundred fuzz cases.
it("keeps every promise of the chaos campaign at the short scale", { timeout: 300_000 }, async () => {
  const figures = await runChaos(SHORT_SCALE);
  const off = figures.filter((f) => !f.ok);
  expect(off, formatTable(figures)).toEqual([]);
  expect(figures.map((f) => f.part)).toEqual(
    expect.arrayContaining(["SIGKILL mid-run", "sessions × calls", "create/delete cycles", "fuzz"]),
  );
});
