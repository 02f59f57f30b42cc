import { describe, expect, it } from "vitest";
import type { TerminalInfo } from "@berth/protocol";
import { NO_TERMINALS, exitNote, reduceTerminalTabs, renameTarget, unlistedTerminals, type TerminalTabsAction } from "./terminal-tabs";

const info = (terminalId: string, name = terminalId): TerminalInfo => ({ terminalId, name, status: "running", exitCode: null }) as TerminalInfo;
const run = (...actions: TerminalTabsAction[]) => actions.reduce(reduceTerminalTabs, NO_TERMINALS);

describe("terminal tabs", () => {
  it("a reconnect's list is the truth: the active tab stays if listed, else the first shows", () => {
    const state = run({ type: "opened", terminal: info("t1") }, { type: "opened", terminal: info("t2") });
    expect(state.active).toBe("t2");
    expect(reduceTerminalTabs(state, { type: "listed", terminals: [info("t1"), info("t2"), info("t3")] }).active).toBe("t2");
    const after = reduceTerminalTabs(state, { type: "listed", terminals: [info("t3"), info("t1")] });
    expect(after).toEqual({ tabs: [{ terminalId: "t3", name: "t3", status: "running", exitCode: null }, { terminalId: "t1", name: "t1", status: "running", exitCode: null }], active: "t3" });
    expect(reduceTerminalTabs(state, { type: "listed", terminals: [] })).toEqual(NO_TERMINALS);
  });

  it("closing the active tab shows the last one left; closing another keeps the active one", () => {
    const state = run({ type: "opened", terminal: info("t1") }, { type: "opened", terminal: info("t2") }, { type: "opened", terminal: info("t3") }, { type: "activate", terminalId: "t2" });
    expect(reduceTerminalTabs(state, { type: "closed", terminalId: "t2" }).active).toBe("t3");
    expect(reduceTerminalTabs(state, { type: "closed", terminalId: "t1" }).active).toBe("t2");
  });

  it("an exit marks the tab with its code; a rename renames", () => {
    let state = run({ type: "opened", terminal: info("t1", "bash") });
    state = reduceTerminalTabs(state, { type: "exited", terminalId: "t1", exitCode: 130 });
    expect(state.tabs[0]).toMatchObject({ status: "exited", exitCode: 130 });
    expect(reduceTerminalTabs(state, { type: "renamed", terminalId: "t1", name: "server" }).tabs[0]?.name).toBe("server");
    expect(exitNote(130)).toBe("[shell exited with code 130; close the tab or open a new one]");
    expect(exitNote(null)).toBe("[shell exited; close the tab or open a new one]");
  });

  it("a rename sends the trimmed name, and nothing when blank or unchanged", () => {
    const state = run({ type: "opened", terminal: info("t1", "bash") });
    expect(renameTarget(state, "t1", "  server ")).toBe("server");
    expect(renameTarget(state, "t1", "   ")).toBeNull();
    expect(renameTarget(state, "t1", " bash")).toBeNull();
  });

  it("finds the views of terminals no longer listed", () => {
    expect(unlistedTerminals(["t1", "t2", "t3"], [info("t2")])).toEqual(["t1", "t3"]);
    expect(unlistedTerminals([], [info("t2")])).toEqual([]);
  });
});
