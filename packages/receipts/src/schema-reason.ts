/** Minimal shape of a zod issue, so this file needs no zod import. */
interface Issue {
  path: PropertyKey[];
  message: string;
}

/**
 * "schema: body.run.id: Too small…" — names the field of each issue (first three), so a reader sees
 * what is wrong with the receipt without a stack of zod output.
 */
export function schemaReason(issues: readonly Issue[], prefix: readonly PropertyKey[] = []): string {
  const parts = issues.slice(0, 3).map((issue) => {
    const path = [...prefix, ...issue.path]
      .map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`))
      .join("");
    return `${path || "(root)"}: ${issue.message}`;
  });
  const more = issues.length > 3 ? ` (+${issues.length - 3} more)` : "";
  return `schema: ${parts.join("; ")}${more}`;
}
