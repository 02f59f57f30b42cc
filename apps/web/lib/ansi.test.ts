import { describe, expect, it } from "vitest";
import { AnsiScreen, renderAnsi } from "./ansi";

const text = (lines: ReturnType<typeof renderAnsi>) => lines.map((line) => line.map((s) => s.text).join(""));

describe("renderAnsi", () => {
  it("colours text by SGR codes and resets them", () => {
    const [line] = renderAnsi([{ stream: "stdout", text: "a\u001b[31mred\u001b[0m \u001b[1;92mok\u001b[m" }]);
    expect(line).toEqual([
      { text: "a", style: {}, stream: "stdout" },
      { text: "red", style: { fg: "#cd3131" }, stream: "stdout" },
      { text: " ", style: {}, stream: "stdout" },
      { text: "ok", style: { bold: true, fg: "#23d18b" }, stream: "stdout" },
    ]);
  });

  it("reads 256-colour and 24-bit colours", () => {
    const [line] = renderAnsi([{ stream: "stdout", text: "\u001b[38;5;196mx\u001b[48;2;1;2;3my" }]);
    expect(line![0]!.style.fg).toBe("rgb(255,0,0)");
    expect(line![1]!.style).toMatchObject({ fg: "rgb(255,0,0)", bg: "rgb(1,2,3)" });
  });

  it("redraws a progress line on \\r, and erases with ESC[K", () => {
    expect(text(renderAnsi([{ stream: "stdout", text: "10%\r50%\r100%\ndone\n" }]))).toEqual(["100%", "done", ""]);
    expect(text(renderAnsi([{ stream: "stdout", text: "loading....\rok\u001b[K\n" }]))).toEqual(["ok", ""]);
    expect(text(renderAnsi([{ stream: "stdout", text: "abc\bX\n" }]))).toEqual(["abX", ""]);
  });

  it("keeps \\r\\n as one newline, and a redraw split across chunks", () => {
    expect(text(renderAnsi([{ stream: "stdout", text: "a\r\nb\r" }, { stream: "stdout", text: "\nc" }]))).toEqual(["a", "b", "c"]);
    expect(text(renderAnsi([{ stream: "stdout", text: "1/3\r" }, { stream: "stdout", text: "3/3" }]))).toEqual(["3/3"]);
  });

  it("keeps stdout and stderr in the order written, each marked with its stream", () => {
    const lines = renderAnsi([
      { stream: "stdout", text: "one\n" },
      { stream: "stderr", text: "two\n" },
      { stream: "stdout", text: "three\n" },
    ]);
    expect(lines.slice(0, 3).map((l) => [l[0]!.stream, l[0]!.text])).toEqual([
      ["stdout", "one"],
      ["stderr", "two"],
      ["stdout", "three"],
    ]);
  });

  it("completes an escape sequence cut between chunks and drops unknown ones", () => {
    const screen = new AnsiScreen();
    screen.write("a\u001b[3");
    screen.write("4mb\u001b]0;title\u0007\u001b[?25lc");
    const [line] = screen.lines();
    expect(line!.map((s) => s.text).join("")).toBe("abc");
    expect(line![1]!.style.fg).toBe("#2472c8");
  });

  it("keeps at most maxLines lines", () => {
    const lines = renderAnsi([{ stream: "stdout", text: Array.from({ length: 50 }, (_, i) => `line ${i}\n`).join("") }], 10);
    expect(lines).toHaveLength(11);
    expect(lines[0]![0]!.text).toBe("line 40");
  });
});
