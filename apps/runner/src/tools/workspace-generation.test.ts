import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { SandboxDriver } from "@berth/sandbox";
import { WorkspaceGeneration, changesWorkspace } from "./workspace-generation";

// The driver's event surface only: the counter listens for processes ending and sandboxes stopping.
const fakeDriver = () => new EventEmitter() as unknown as Pick<SandboxDriver, "on"> & EventEmitter;

describe("changesWorkspace", () => {
  it("reads change nothing; failed writes change nothing; every command that ran may have", () => {
    expect(changesWorkspace({ actionClass: "read", ok: true })).toBe(false);
    expect(changesWorkspace({ actionClass: "write", ok: true })).toBe(true);
    expect(changesWorkspace({ actionClass: "write", ok: false })).toBe(false);
    for (const actionClass of ["execute", "network", "system_modify", "unknown", "dispatch"] as const) {
      expect(changesWorkspace({ actionClass, ok: false }), actionClass).toBe(true);
    }
  });
});

describe("WorkspaceGeneration", () => {
  it("counts per session, from 0", () => {
    const generation = new WorkspaceGeneration();
    expect(generation.current("s1")).toBe(0);
    expect(generation.bump("s1")).toBe(1);
    expect(generation.current("s1")).toBe(1);
    expect(generation.current("s2")).toBe(0);
  });

  it("a background process that ends, or a sandbox that stops, is a change", () => {
    const driver = fakeDriver();
    const generation = new WorkspaceGeneration(driver);
    driver.emit("process.status", { sessionId: "s1", processId: "p", status: "RUNNING", exitCode: null });
    expect(generation.current("s1")).toBe(0);
    driver.emit("process.status", { sessionId: "s1", processId: "p", status: "EXITED", exitCode: 0 });
    expect(generation.current("s1")).toBe(1);
    driver.emit("terminated", { sessionId: "s1", cause: "oom" });
    expect(generation.current("s1")).toBe(2);
  });
});

describe("WorkspaceGeneration.observedBy", () => {
  it("a process poll also observes the process's output; other calls only the workspace", () => {
    const driver = fakeDriver();
    const generation = new WorkspaceGeneration(driver);
    const logs = { action: "logs", processId: "p" };
    const before = generation.observedBy("s1", "bash", logs);
    driver.emit("output", { sessionId: "s1", processId: "p", stream: "stdout", offset: 0, data: Buffer.from("hi\n") });
    expect(generation.observedBy("s1", "bash", logs)).toBeGreaterThan(before);
    expect(generation.observedBy("s1", "read_file", { path: "a" })).toBe(0);
    expect(generation.observedBy("s1", "bash", { command: "cat a" })).toBe(0);
    generation.bump("s1");
    expect(generation.observedBy("s1", "read_file", { path: "a" })).toBe(1);
  });
});
