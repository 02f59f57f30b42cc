export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { year: "numeric", month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export function formatRelative(iso: string | null | undefined): string {
  if (!iso) return "—";
  const ms = Date.now() - new Date(iso).getTime();
  if (Number.isNaN(ms)) return iso;
  const s = Math.round(ms / 1000);
  if (s < 5) return "just now";
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.round(h / 24)}d ago`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m ${Math.round((ms % 60_000) / 1000)}s`;
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return "—";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export const shortId = (id: string | null | undefined) => (id ? (id.length > 14 ? `${id.slice(0, 12)}…` : id) : "—");

const encoder = new TextEncoder();
export const byteLength = (text: string) => encoder.encode(text).length;

/**
 * Keeps only the part of a chunk at `offset` that lies past `have` bytes (offsets are bytes, data is
 * UTF-8 text): the piece to append, or null when the chunk is entirely old. A chunk that starts after
 * `have` is a gap the caller should fill from the stored log.
 */
export function sliceNew(have: number, offset: number, data: string): { text: string; end: number; gap: boolean } | null {
  const bytes = encoder.encode(data);
  const end = offset + bytes.length;
  if (end <= have) return null;
  if (offset >= have) return { text: data, end, gap: offset > have };
  return { text: new TextDecoder().decode(bytes.slice(have - offset)), end, gap: false };
}
