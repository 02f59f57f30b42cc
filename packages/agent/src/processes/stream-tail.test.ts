import { describe, expect, it } from "vitest";
import { StreamTail } from "./stream-tail";

describe("StreamTail", () => {
  it("keeps everything under its capacity, and counts every byte", () => {
    const tail = new StreamTail(8);
    tail.push(Buffer.from("abc"));
    tail.push(Buffer.from("de"));
    expect(tail.text()).toBe("abcde");
    expect(tail.total).toBe(5);
    expect(new StreamTail(8).text()).toBe("");
  });

  it("keeps the last bytes in order across the ring's wrap-around", () => {
    const tail = new StreamTail(8);
    for (const part of ["abcde", "fgh", "ijk", "lmnopq"]) tail.push(Buffer.from(part));
    expect(tail.bytes().toString()).toBe("jklmnopq");
    expect(tail.total).toBe(17);
    // Exactly full, then one more byte.
    const exact = new StreamTail(4);
    exact.push(Buffer.from("wxyz"));
    expect(exact.text()).toBe("wxyz");
    exact.push(Buffer.from("!"));
    expect(exact.text()).toBe("xyz!");
  });

  it("takes the end of a chunk larger than itself", () => {
    const tail = new StreamTail(4);
    tail.push(Buffer.from("ab"));
    tail.push(Buffer.from("0123456789"));
    expect(tail.text()).toBe("6789");
    expect(tail.total).toBe(12);
  });

  it("copies: a chunk's buffer filled again afterwards does not change the tail", () => {
    const tail = new StreamTail(16);
    const reused = Buffer.from("first");
    tail.push(reused);
    reused.write("XXXXX");
    expect(tail.text()).toBe("first");
  });

  it("starts the text on a whole UTF-8 character when the stream was cut", () => {
    const tail = new StreamTail(4);
    // "é" is 2 bytes, "€" 3: the kept 4 bytes start on the last two of "€".
    tail.push(Buffer.from("aé€bc"));
    expect(tail.bytes()).toHaveLength(4);
    expect(tail.text()).toBe("bc");
    const onEdge = new StreamTail(5);
    onEdge.push(Buffer.from("aé€bc"));
    expect(onEdge.text()).toBe("€bc");
    const whole = new StreamTail(5);
    whole.push(Buffer.from("x€b"));
    expect(whole.text()).toBe("x€b");
  });
});
