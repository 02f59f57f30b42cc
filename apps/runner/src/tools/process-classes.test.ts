import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { SandboxDriver } from "@berth/sandbox";
import { ProcessClasses } from "./process-classes";

const started = { actionClass: "execute" as const, recognised: true, alwaysAsk: false, reasons: ["npm run dev"] };

describe("ProcessClasses", () => {
  it("remembers each started process's class per session, keeping only the classification", () => {
    const classes = new ProcessClasses();
    classes.remember("s1", "proc_1", { ...started, text: "bash start npm run dev" } as typeof started);
    expect(classes.classOf("s1", "proc_1")).toEqual(started);
    expect(classes.classOf("s2", "proc_1")).toBeUndefined();
    expect(classes.classOf("s1", "proc_2")).toBeUndefined();
  });

  it("forgets the oldest beyond its cap, and a session's processes when its sandbox stops", () => {
    const driver = new EventEmitter() as unknown as Pick<SandboxDriver, "on"> & EventEmitter;
    const classes = new ProcessClasses(driver, 2);
    for (const id of ["a", "b", "c"]) classes.remember("s1", id, started);
    expect(classes.classOf("s1", "a")).toBeUndefined();
    expect(classes.classOf("s1", "c")).toEqual(started);
    driver.emit("terminated", { sessionId: "s1", cause: "oom" });
    expect(classes.classOf("s1", "c")).toBeUndefined();
  });
});
