"use client";
import { RunImageSchema, type RunImage } from "@berth/protocol";

/** The images a run kept from its result (an upstream MCP tool's image content), from the run's details. */
export function runImages(details: unknown): RunImage[] {
  const list = (details as { images?: unknown } | null)?.images;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    const parsed = RunImageSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Shows a result's images as images (the log has only their textual stand-in). */
export function ResultImages({ details }: { details: unknown }) {
  const images = runImages(details);
  if (images.length === 0) return null;
  return (
    <div className="row wrap" data-testid="result-images">
      {images.map((image, i) => (
        <img key={i} src={`data:${image.mimeType};base64,${image.data}`} alt={`image ${i + 1} of the result (${image.mimeType})`} style={{ maxWidth: "100%" }} />
      ))}
    </div>
  );
}
