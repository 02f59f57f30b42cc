import { describe, expect, it } from "vitest";
import { storedObject } from "./stored-object";

describe("storedObject", () => {
  it("is the object stored, or null for nothing, broken JSON and JSON that is not an object", () => {
    expect(storedObject('{"a":1}')).toEqual({ a: 1 });
    expect(storedObject(null)).toBeNull();
    expect(storedObject("")).toBeNull();
    expect(storedObject("{not json")).toBeNull();
    expect(storedObject("3")).toBeNull();
    expect(storedObject("null")).toBeNull();
    expect(storedObject('"text"')).toBeNull();
  });
});
