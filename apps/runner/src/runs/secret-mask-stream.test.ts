import { describe, expect, it } from "vitest";
import { SecretMaskStream } from "./secret-mask-stream";

const through = (mask: SecretMaskStream, chunks: string[]): string =>
  Buffer.concat([...chunks.map((c) => mask.push(Buffer.from(c))), mask.flush()]).toString();

describe("SecretMaskStream", () => {
  it("masks a known value inside a chunk and across chunk boundaries", () => {
    expect(through(new SecretMaskStream(["hunter22"]), ["pw=hunter22\n"])).toBe("pw=[REDACTED]\n");
    expect(through(new SecretMaskStream(["hunter22"]), ["pw=hun", "te", "r22 ok\n"])).toBe("pw=[REDACTED] ok\n");
  });

  it("holds back only what could start a secret, and gives it back at the end", () => {
    const mask = new SecretMaskStream(["hunter22"]);
    expect(mask.push(Buffer.from("abc hunt")).toString()).toBe("abc ");
    expect(mask.flush().toString()).toBe("hunt");
  });

  it("passes bytes through unchanged when nothing is secret", () => {
    const mask = new SecretMaskStream(["1"]);
    expect(mask.active).toBe(false);
    expect(through(mask, ["a 1 b"])).toBe("a 1 b");
  });
});
