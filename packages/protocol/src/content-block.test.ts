import { describe, expect, it } from "vitest";
import { ContentBlockSchema, RUN_IMAGES_MAX_CHARS, contentBlockText, runImagesOf } from "./content-block";

describe("content blocks", () => {
  it("keeps fields the schema does not name (a block passes through unchanged)", () => {
    const block = { type: "image", data: "AAAA", mimeType: "image/png", title: "later spec field", annotations: { priority: 1, extra: true } };
    expect(ContentBlockSchema.parse(block)).toEqual(block);
  });

  it("refuses a block missing what its kind needs, naming the field", () => {
    const parsed = ContentBlockSchema.safeParse({ type: "image", data: "AAAA" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["mimeType"]);
  });

  it("gives text readers a stand-in with the decoded size", () => {
    expect(contentBlockText({ type: "audio", data: "AAAAAA==", mimeType: "audio/wav" })).toBe("[audio audio/wav, 4 bytes]");
    expect(contentBlockText({ type: "resource", resource: { uri: "file:///b", blob: "AA==" } })).toBe("[resource file:///b]");
  });

  it("keeps a run's displayable images only, within the cap", () => {
    const png = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
    expect(runImagesOf([png, { type: "image", data: "PHN2Zz4=", mimeType: "image/svg+xml" }, { type: "text", text: "x" }])).toEqual([
      { mimeType: "image/png", data: "AAAA" },
    ]);
    const big = { type: "image" as const, data: "A".repeat(RUN_IMAGES_MAX_CHARS), mimeType: "image/jpeg" };
    expect(runImagesOf([big, png])).toHaveLength(1);
    expect(runImagesOf(undefined)).toEqual([]);
  });
});
