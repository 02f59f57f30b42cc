/** Thrown inside a tool to end the call with `ok:false`; the dispatcher turns it into a ToolResult. */
export class ToolFailureError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "ToolFailureError";
    this.code = code;
    this.details = details;
  }
}

export function fail(code: string, message: string, details?: Record<string, unknown>): never {
  throw new ToolFailureError(code, message, details);
}
