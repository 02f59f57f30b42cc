import { describe, expect, it } from "vitest";
import { InFlightCalls } from "./in-flight-calls";

const owner = { sessionId: "s1", userId: "u1" };

describe("InFlightCalls", () => {
  it("aborts the call the client's cancellation names, and only that one", () => {
    const calls = new InFlightCalls();
    const a = calls.track(owner, 1, new AbortController().signal);
    const b = calls.track(owner, 2, new AbortController().signal);
    const other = calls.track({ sessionId: "s1", userId: "u2" }, 1, new AbortController().signal);
    const asString = calls.track(owner, "1", new AbortController().signal);
    expect(calls.cancel(owner, 1, "user pressed stop")).toBe(true);
    expect(a.signal.aborted).toBe(true);
    expect(String(a.signal.reason)).toContain("user pressed stop");
    expect([b.signal.aborted, other.signal.aborted, asString.signal.aborted]).toEqual([false, false, false]);
    expect(a.cancelledByClient()).toBe(true);
  });

  it("follows the request's own signal, and forgets a call once it is done", () => {
    const calls = new InFlightCalls();
    const parent = new AbortController();
    const call = calls.track(owner, 7, parent.signal);
    parent.abort();
    expect(call.signal.aborted).toBe(true);
    // The request's own end (the client went away) is not a cancellation by the client.
    expect(call.cancelledByClient()).toBe(false);
    call.done();
    expect(calls.size).toBe(0);
    expect(calls.cancel(owner, 7)).toBe(false);
    expect(calls.cancel(owner, undefined)).toBe(false);
  });
});
