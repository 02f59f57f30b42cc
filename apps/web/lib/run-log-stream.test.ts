import { afterEach, describe, expect, it, vi } from "vitest";
import { streamRunLog, type LogPiece } from "./run-log-stream";

/** A 206 whose body arrives in the given pieces of bytes, as a network would cut it. */
const partial = (pieces: Uint8Array[]) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    }),
    { status: 206 },
  );

describe("streamRunLog", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("asks for the range from the offset and hands over whole characters with their byte offsets", async () => {
    const bytes = new TextEncoder().encode("a ✓ b\né\n");
    // Cut inside ✓ (3 bytes at 2..4) and inside é (2 bytes at 8..9).
    const fetch = vi.fn(async () => partial([bytes.slice(0, 3), bytes.slice(3, 9), bytes.slice(9)]));
    vi.stubGlobal("fetch", fetch);
    const pieces: LogPiece[] = [];
    const end = await streamRunLog("run_1", "combined", 100, (piece) => pieces.push(piece));
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/runs/run_1/logs?stream=combined&download=1");
    expect((init.headers as Record<string, string>).range).toBe("bytes=100-");
    expect(pieces.map((p) => p.text).join("")).toBe("a ✓ b\né\n");
    expect(pieces.every((p) => !p.text.includes("\uFFFD"))).toBe(true);
    expect(pieces.map((p) => [p.offset, p.end])).toEqual([
      [100, 102],
      [102, 108],
      [108, 111],
    ]);
    expect(end).toBe(100 + bytes.length);
  });

  it("ends at once at the offset when the log has nothing past it (416)", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify({ error: { code: "bad_request", message: "past the end" } }), { status: 416 })));
    const pieces: LogPiece[] = [];
    expect(await streamRunLog("run_1", "stdout", 42, (piece) => pieces.push(piece))).toBe(42);
    expect(pieces).toEqual([]);
  });

  it("names the request when the answer is not a range", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response("{}", { status: 404 })));
    await expect(streamRunLog("run_1", "stdout", 0, () => undefined)).rejects.toThrow("GET /api/runs/run_1/logs (Range bytes=0-) answered 404");
  });
});
