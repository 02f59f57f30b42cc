import { EventEmitter } from "node:events";
import type { ApprovalRequest } from "@berth/protocol";

/** Events inside one runner that the socket layer (and, for scale-out, the Redis adapter) fans out. */
export type RunnerEventMap = {
  /** `data` is whole UTF-8 characters; `bytes` is its length in the log, so offsets stay exact. */
  "run:output": [{ runId: string; sessionId: string; stream: "stdout" | "stderr"; offset: number; data: string; bytes: number }];
  "run:status": [{ runId: string; sessionId: string; status: string; outcome: string | null; exitCode: number | null }];
  "process:output": [{ sessionId: string; processId: string; stream: "combined"; offset: number; data: string; bytes: number }];
  "process:status": [{ sessionId: string; processId: string; status: string; exitCode: number | null }];
  "file:changed": [{ sessionId: string; path: string }];
  "session:status": [
    {
      sessionId: string;
      status: string;
      terminationCause: string | null;
      /** Set when autonomy changed (PATCH /api/sessions/:id), with who changed it. */
      autonomy?: string;
      autonomyChangedBy?: string;
      autonomyChangedAt?: string | null;
    },
  ];
  "approval:created": [ApprovalRequest];
  "approval:decided": [ApprovalRequest];
};

export class RunnerEvents extends EventEmitter<RunnerEventMap> {
  constructor() {
    super();
    // Every socket subscribes; the default cap of 10 would warn spuriously.
    this.setMaxListeners(0);
  }
}
