import { z } from "zod";

/**
 * MCP content blocks (the 2025-11-25 tool result `content` union) as Berth carries them beside a result's
 * `output` string. Every object is loose: a block an upstream server sent reaches an MCP caller unchanged,
 * fields this schema does not name (`_meta`, `title`, `icons`, a newer spec's additions) included.
 */

export const ContentAnnotationsSchema = z.looseObject({
  audience: z.array(z.enum(["user", "assistant"])).optional(),
  priority: z.number().min(0).max(1).optional(),
  lastModified: z.string().optional(),
});
export type ContentAnnotations = z.infer<typeof ContentAnnotationsSchema>;

const blockFields = {
  annotations: ContentAnnotationsSchema.optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
};

export const TextBlockSchema = z.looseObject({ type: z.literal("text"), text: z.string(), ...blockFields });
export const ImageBlockSchema = z.looseObject({
  type: z.literal("image"),
  /** base64 */
  data: z.string(),
  mimeType: z.string(),
  ...blockFields,
});
export const AudioBlockSchema = z.looseObject({
  type: z.literal("audio"),
  /** base64 */
  data: z.string(),
  mimeType: z.string(),
  ...blockFields,
});

const resourceFields = { uri: z.string(), mimeType: z.string().optional(), _meta: z.record(z.string(), z.unknown()).optional() };
export const ResourceContentsSchema = z.union([
  z.looseObject({ ...resourceFields, text: z.string() }),
  z.looseObject({ ...resourceFields, blob: z.string() }),
]);
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;

export const ResourceBlockSchema = z.looseObject({ type: z.literal("resource"), resource: ResourceContentsSchema, ...blockFields });
export const ResourceLinkBlockSchema = z.looseObject({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
  ...blockFields,
});

export const ContentBlockSchema = z.discriminatedUnion("type", [
  TextBlockSchema,
  ImageBlockSchema,
  AudioBlockSchema,
  ResourceBlockSchema,
  ResourceLinkBlockSchema,
]);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export function isContentBlock(value: unknown): value is ContentBlock {
  return ContentBlockSchema.safeParse(value).success;
}

/** base64 length → decoded bytes (padding counted out). */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * The short text a non-MCP caller (REST, the IDE, a model behind another protocol) reads for a block:
 * text as is, a resource's text, and a named stand-in for what a model cannot read as text.
 */
export function contentBlockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource":
      return typeof block.resource.text === "string" ? block.resource.text : `[resource ${block.resource.uri}]`;
    case "resource_link":
      return `[resource ${block.uri}]`;
  }
}

/** Image types a page may show as an <img> (no SVG: it is a document, not a picture). */
export const DISPLAYABLE_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
/** Kept with a run for the run page: above this (base64 characters, all images together) none are. */
export const RUN_IMAGES_MAX_CHARS = 2 * 1024 * 1024;

export const RunImageSchema = z.object({ mimeType: z.enum(DISPLAYABLE_IMAGE_TYPES), data: z.string() });
export type RunImage = z.infer<typeof RunImageSchema>;

/** The images of a result that a run keeps for its page: displayable types only, within the cap. */
export function runImagesOf(content: readonly ContentBlock[] | undefined): RunImage[] {
  const images: RunImage[] = [];
  let chars = 0;
  for (const block of content ?? []) {
    if (block.type !== "image") continue;
    const parsed = RunImageSchema.safeParse({ mimeType: block.mimeType, data: block.data });
    if (!parsed.success) continue;
    chars += parsed.data.data.length;
    if (chars > RUN_IMAGES_MAX_CHARS) break;
    images.push(parsed.data);
  }
  return images;
}
