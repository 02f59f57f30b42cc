import path from "node:path";
import { describe, expect, it } from "vitest";
import { linkProblem, linksOf } from "./check-doc-links.mjs";

const root = path.resolve(import.meta.dirname, "..");
const readme = path.join(root, "README.md");

describe("check:docs", () => {
  it("finds Markdown links but not paths inside code", () => {
    expect(linksOf("see [a](docs/a.md) and `[b](not/a/link.md)`\n```\n[c](fenced.md)\n```\n[d](https://x.y \"t\")")).toEqual(["docs/a.md", "https://x.y"]);
  });

  it("reports a missing file and a path outside the repository, and leaves URLs and anchors alone", () => {
    const exists = (p) => p === path.join(root, "docs/api.md");
    expect(linkProblem(readme, "docs/api.md#mcp", exists)).toBeNull();
    expect(linkProblem(readme, "docs/gone.md", exists)).toBe("docs/gone.md does not exist");
    expect(linkProblem(readme, "../elsewhere/README.md", exists)).toBe("../elsewhere/README.md points outside the repository");
    expect(linkProblem(readme, "https://example.com/x.md", exists)).toBeNull();
    expect(linkProblem(readme, "#configuration", exists)).toBeNull();
  });
});
