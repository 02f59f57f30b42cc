import { describe, expect, it } from "vitest";
import { boundContent } from "./bound-content";

const sha = "ab".repeat(32);

describe("boundContent", () => {
  it("reads the script content out of an approval text", () => {
    const text = `run_script {"script":"s.py"}\nfile s.py sha256=${sha} bytes=20\n--- s.py (20 of 20 bytes, sha256 ${sha}) ---\n| import os\n| print(1)\n--- end of s.py ---`;
    expect(boundContent(text)).toEqual({
      title: `s.py (20 of 20 bytes, sha256 ${sha})`,
      content: "import os\nprint(1)",
      truncated: false,
    });
  });

  it("says when the content was cut, and finds nothing in a text without content", () => {
    const cut = `x\n--- s.sh (first 5 of 9 bytes, sha256 ${sha}) ---\n| echo\n--- end of s.sh (truncated) ---`;
    expect(boundContent(cut)?.truncated).toBe(true);
    expect(boundContent('bash {"command":"ls"}')).toBeUndefined();
  });
});
