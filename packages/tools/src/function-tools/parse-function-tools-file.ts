import { z } from "zod";
import { RUN_SCRIPT_INTERPRETERS, RUN_SCRIPT_MAX_TIMEOUT_MS, noNul, type ActionClass } from "@berth/protocol";
import { checkJsonSchema, previewValue, type JsonSchema } from "./json-schema-subset";

/** The file a workspace declares its function tools in, at the workspace root. */
export const FUNCTION_TOOLS_FILE = "berth.tools.json";
/** Larger files are refused whole (the runner reads the file on every change). */
export const FUNCTION_TOOLS_FILE_MAX_BYTES = 64 * 1024;
export const FUNCTION_TOOLS_MAX_TOOLS = 64;

/** The classes a function tool may declare: what its script does. `dispatch` is a plan of calls, which a script is not. */
export const FUNCTION_TOOL_CLASSES = ["read", "write", "execute", "network", "system_modify", "git_destructive", "unknown"] as const satisfies readonly ActionClass[];

/** A tool with no `parameters` takes none. */
const NO_PARAMETERS: JsonSchema = { type: "object", properties: {}, additionalProperties: false };

export const FunctionToolDeclarationSchema = z
  .object({
    name: z.string().min(1, "must not be empty").max(200, "must be at most 200 characters"),
    description: z.string().min(1, "must not be empty").max(4000, "must be at most 4000 characters"),
    parameters: z.record(z.string(), z.unknown()).optional(),
    script: z.string().min(1, "must not be empty").max(4096, "must be at most 4096 characters").refine(noNul, "must not contain NUL bytes"),
    interpreter: z.enum(RUN_SCRIPT_INTERPRETERS, { error: `must be one of ${RUN_SCRIPT_INTERPRETERS.join(", ")}` }),
    actionClass: z.enum(FUNCTION_TOOL_CLASSES, { error: `must be one of ${FUNCTION_TOOL_CLASSES.join(", ")}` }),
    timeoutMs: z.number().int("must be a whole number of milliseconds").min(1, "must be at least 1").max(RUN_SCRIPT_MAX_TIMEOUT_MS, `must be at most ${RUN_SCRIPT_MAX_TIMEOUT_MS}`).optional(),
  })
  .strict();
export type FunctionToolDeclaration = Omit<z.infer<typeof FunctionToolDeclarationSchema>, "parameters"> & { parameters: JsonSchema };

const FunctionToolsFileSchema = z
  .object({
    tools: z.array(z.unknown()).max(FUNCTION_TOOLS_MAX_TOOLS, `must have at most ${FUNCTION_TOOLS_MAX_TOOLS} entries`),
  })
  .strict();

/** What a scan of the file found: its tools, or (when anything is wrong) none and every problem. */
export interface FunctionToolsScan {
  tools: FunctionToolDeclaration[];
  /** `berth.tools.json: tools[1] (count_lines): parameters.properties.n.type: …`; non-empty means no tool is loaded. */
  problems: string[];
}

/** What `context workspace` shows of a session's berth.tools.json. */
export interface FunctionToolsReport {
  file: string;
  /** The tools loaded, each under the name it is exposed as. */
  tools: { name: string; declaredName: string; actionClass: string; interpreter: string; script: string }[];
  /** Why nothing was loaded: each names the file, the entry and the field. */
  problems: string[];
  /** Names that had to change (sanitised, or suffixed because they were taken). */
  notes: string[];
}

function issueText(issue: z.core.$ZodIssue & { input?: unknown }): string {
  const field = issue.path.map(String).join(".");
  const at = field ? `${field}: ` : "";
  if (issue.code === "unrecognized_keys") return `${at}unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_type" && issue.input === undefined) return `${at}required`;
  return `${at}${issue.message} (got ${previewValue(issue.input)})`;
}

/**
 * Parses berth.tools.json. All or nothing: a file with any problem loads no tool (a half-read file would call
 * scripts the author did not finish declaring), and every problem names the file, the entry and the field.
 */
export function parseFunctionToolsFile(text: string): FunctionToolsScan {
  const problem = (message: string): FunctionToolsScan => ({ tools: [], problems: [`${FUNCTION_TOOLS_FILE}: ${message}`] });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return problem(`not valid JSON (${(error as Error).message})`);
  }
  const file = FunctionToolsFileSchema.safeParse(json, { reportInput: true });
  if (!file.success) return { tools: [], problems: file.error.issues.map((issue) => `${FUNCTION_TOOLS_FILE}: ${issueText(issue)}`) };
  const tools: FunctionToolDeclaration[] = [];
  const problems: string[] = [];
  file.data.tools.forEach((entry, index) => {
    const label = `tools[${index}]${typeof (entry as { name?: unknown })?.name === "string" ? ` (${(entry as { name: string }).name})` : ""}`;
    const parsed = FunctionToolDeclarationSchema.safeParse(entry, { reportInput: true });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(`${FUNCTION_TOOLS_FILE}: ${label}: ${issueText(issue)}`);
      return;
    }
    const parameters = parsed.data.parameters ?? NO_PARAMETERS;
    const schemaProblems = checkJsonSchema(parameters, "parameters");
    if (parameters.type !== "object") schemaProblems.unshift(`parameters.type: must be "object" (got ${previewValue(parameters.type)})`);
    if (schemaProblems.length > 0) {
      for (const text of schemaProblems) problems.push(`${FUNCTION_TOOLS_FILE}: ${label}: ${text}`);
      return;
    }
    tools.push({ ...parsed.data, parameters });
  });
  return problems.length > 0 ? { tools: [], problems } : { tools, problems: [] };
}
