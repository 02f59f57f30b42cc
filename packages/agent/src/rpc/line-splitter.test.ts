import { describe, expect, it } from "vitest";
import { LineSplitter } from "./line-splitter";

describe("LineSplitter", () => {
  it("joins lines split across chunks and splits chunks holding several lines", () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(
      (l) => lines.push(l.toString()),
      () => lines.push("<oversize>"),
    );
    splitter.push(Buffer.from('{"a":'));
    splitter.push(Buffer.from('1}\n{"b":2}\n{"c"'));
    splitter.push(Buffer.from(":3}"));
    splitter.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it("drops an oversized line whole, reports it once, and carries on with the next", () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(
      (l) => lines.push(l.toString()),
      () => lines.push("<oversize>"),
      8,
    );
    splitter.push(Buffer.from("0123456"));
    splitter.push(Buffer.from("789abcdef"));
    splitter.push(Buffer.from("ghij\nok\n"));
    expect(lines).toEqual(["<oversize>", "ok"]);
  });
});
