/** What formatIssues reads of an issue: a zod issue, or any with a path and a message. */
export interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * zod issues as one line, `field: message; field: message`, so an error names what was wrong. A failure
 * of the value as a whole is named `root` ("arguments" for tool calls, "params" for agent requests).
 */
export function formatIssues(error: { readonly issues: readonly IssueLike[] }, root = "arguments"): string {
  return error.issues.map((issue) => formatIssue(issue, root)).join("; ");
}

/** One issue as `field: message` (the whole value is named `root`), for callers that list them apart. */
export function formatIssue(issue: IssueLike, root = "arguments"): string {
  return `${issue.path.map(String).join(".") || root}: ${issue.message}`;
}
