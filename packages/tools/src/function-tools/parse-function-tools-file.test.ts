import { describe, expect, it } from "vitest";
import { FUNCTION_TOOLS_MAX_TOOLS, parseFunctionToolsFile } from "./parse-function-tools-file";

const countLines = {
  name: "count_lines",
  description: "Count the lines of a file. Prints the count.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  script: "tools/count_lines.py",
  interpreter: "python3",
  actionClass: "read",
};

const file = (tools: unknown[]) => JSON.stringify({ tools });

describe("parseFunctionToolsFile", () => {
  it("loads well-formed declarations, a tool without parameters taking none", () => {
    const scan = parseFunctionToolsFile(file([countLines, { ...countLines, name: "touch", parameters: undefined, actionClass: "write" }]));
    expect(scan.problems).toEqual([]);
    expect(scan.tools.map((tool) => tool.name)).toEqual(["count_lines", "touch"]);
    expect(scan.tools[1]?.parameters).toEqual({ type: "object", properties: {}, additionalProperties: false });
  });

  it("is all or nothing: one bad entry loads no tool, and the problem names the file, the entry and the field", () => {
    const scan = parseFunctionToolsFile(file([countLines, { ...countLines, name: "bad", interpreter: "python4" }]));
    expect(scan.tools).toEqual([]);
    expect(scan.problems).toEqual([
      'berth.tools.json: tools[1] (bad): interpreter: must be one of python3, python, node, bash, sh, Rscript, julia, perl, ruby, octave (got "python4")',
    ]);
  });

  it("names a missing field, an unknown field and a bad schema keyword", () => {
    const { name: _name, ...unnamed } = countLines;
    expect(parseFunctionToolsFile(file([unnamed])).problems).toEqual(["berth.tools.json: tools[0]: name: required"]);
    expect(parseFunctionToolsFile(file([{ ...countLines, command: "rm" }])).problems).toEqual(["berth.tools.json: tools[0] (count_lines): unknown field command"]);
    const typed = parseFunctionToolsFile(file([{ ...countLines, parameters: { type: "object", properties: { n: { type: "int" } } } }]));
    expect(typed.problems[0]).toMatch(/^berth\.tools\.json: tools\[0\] \(count_lines\): parameters\.properties\.n\.type: must be one of/);
    expect(parseFunctionToolsFile(file([{ ...countLines, parameters: { type: "array" } }])).problems).toEqual([
      'berth.tools.json: tools[0] (count_lines): parameters.type: must be "object" (got "array")',
    ]);
    expect(parseFunctionToolsFile(file([{ ...countLines, actionClass: "dispatch" }])).problems[0]).toMatch(/actionClass: must be one of read, write, execute/);
  });

  it("reports text that is not JSON, and a file of the wrong shape", () => {
    expect(parseFunctionToolsFile("{ tools: [").problems[0]).toMatch(/^berth\.tools\.json: not valid JSON \(/);
    expect(parseFunctionToolsFile("[]").problems[0]).toMatch(/^berth\.tools\.json: Invalid input: expected object, received array/);
    expect(parseFunctionToolsFile(JSON.stringify({ tools: [], extra: 1 })).problems).toEqual(["berth.tools.json: unknown field extra"]);
    const many = parseFunctionToolsFile(file(Array.from({ length: FUNCTION_TOOLS_MAX_TOOLS + 1 }, () => countLines)));
    expect(many.problems[0]).toMatch(/^berth\.tools\.json: tools: must have at most 64 entries/);
  });
});
