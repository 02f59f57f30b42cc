import { z } from "zod";

export const ErrorCodeSchema = z.enum([
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "payload_too_large",
  "sandbox_unavailable",
  "internal",
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ERROR_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  sandbox_unavailable: 503,
  internal: 500,
};

const marker = Symbol.for("berth.AppError");

/** The one error base of Berth. A 5xx never shows its internal message to clients (see toApiError). */
export class AppError extends Error {
  readonly [marker] = true;
  readonly code: ErrorCode;
  readonly userMessage: string | undefined;
  readonly status: number;

  constructor(opts: { code: ErrorCode; message: string; userMessage?: string; status?: number; cause?: unknown }) {
    super(opts.message, { cause: opts.cause });
    this.name = "AppError";
    this.code = opts.code;
    this.userMessage = opts.userMessage;
    this.status = opts.status ?? ERROR_STATUS[opts.code];
  }

  static isInstance(error: unknown): error is AppError {
    return typeof error === "object" && error !== null && marker in error;
  }
}

export const ApiErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>;

/** Maps any thrown value to the REST error body and status; internal messages stay on the server. */
export function toApiError(error: unknown): { status: number; body: ApiErrorBody } {
  if (AppError.isInstance(error)) {
    const message = error.status >= 500 ? (error.userMessage ?? "Internal error") : (error.userMessage ?? error.message);
    return { status: error.status, body: { error: { code: error.code, message } } };
  }
  return { status: 500, body: { error: { code: "internal", message: "Internal error" } } };
}
