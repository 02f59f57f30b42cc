import { describe, expect, it } from "vitest";
import { StartGate } from "./start-gate";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("StartGate", () => {
  it("never runs more than its limit at once", async () => {
    const gate = new StartGate(3);
    let now = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 12 }, () =>
        gate.run(async () => {
          peak = Math.max(peak, ++now);
          await tick();
          now--;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(gate.running).toBe(0);
  });

  it("lets session starts pass queued pool refills", async () => {
    const gate = new StartGate(1);
    const order: string[] = [];
    const blocker = gate.run(tick);
    const refill = gate.run(async () => void order.push("refill"), { background: true });
    const session = gate.run(async () => void order.push("session"));
    await Promise.all([blocker, refill, session]);
    expect(order).toEqual(["session", "refill"]);
  });

  it("releases its slot when the task throws", async () => {
    const gate = new StartGate(1);
    await expect(gate.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(gate.run(async () => "ok")).resolves.toBe("ok");
  });
});
