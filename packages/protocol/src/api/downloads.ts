import { z } from "zod";

// ---- GET /api/sessions/:id/download (docs/api.md "REST") ----

export const DOWNLOAD_PATH_MAX_CHARS = 4096;

/** `path` is a folder relative to /workspace ("." for all of it); the answer is streamed as it is made. */
export const DownloadQuerySchema = z.object({
  path: z.string().min(1, "must name a folder").max(DOWNLOAD_PATH_MAX_CHARS, `must be at most ${DOWNLOAD_PATH_MAX_CHARS} characters`),
  format: z.enum(["tar.gz", "zip"], { error: 'must be "tar.gz" or "zip"' }).default("tar.gz"),
});
export type DownloadQuery = z.infer<typeof DownloadQuerySchema>;
