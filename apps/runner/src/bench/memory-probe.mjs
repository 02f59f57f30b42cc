// Loaded into a bench's runner process with `node --expose-gc --import <this file>`: answers
// {type: "memory", gc} on the IPC channel with process.memoryUsage(), after a full GC when asked, so a bench
// can tell retained memory (a leak) from garbage not yet collected and RSS kept as a high-water mark. `gcMs` is
// the process's GC pauses so far (the forced ones included), so a bench can take a round's from two answers.
import { PerformanceObserver } from "node:perf_hooks";

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ["gc"] });
process.on("message", (message) => {
  if (message?.type !== "memory") return;
  if (message.gc) globalThis.gc?.();
  process.send?.({ type: "memory", id: message.id, gcMs, ...process.memoryUsage() });
});
// The channel must not keep the runner alive past its SIGTERM.
process.channel?.unref();
