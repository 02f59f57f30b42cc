// Loaded into a bench's runner process with `node --expose-gc --import <this file>`: answers
// {type: "memory", gc} on the IPC channel with process.memoryUsage(), after a full GC when asked, so a bench
// can tell retained memory (a leak) from garbage not yet collected and RSS kept as a high-water mark.
process.on("message", (message) => {
  if (message?.type !== "memory") return;
  if (message.gc) globalThis.gc?.();
  process.send?.({ type: "memory", id: message.id, ...process.memoryUsage() });
});
// The channel must not keep the runner alive past its SIGTERM.
process.channel?.unref();
