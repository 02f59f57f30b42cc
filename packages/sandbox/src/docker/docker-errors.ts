export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The HTTP status of a dockerode error (404: the container or volume is already gone). */
export function statusCode(error: unknown): number | undefined {
  return typeof error === "object" && error !== null && "statusCode" in error && typeof error.statusCode === "number"
    ? error.statusCode
    : undefined;
}
