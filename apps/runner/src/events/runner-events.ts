import { EventEmitter } from "node:events";
import type {
  ApprovalRequest,
  FileChangedEvent,
  ProcessOutputEvent,
  ProcessStatusEvent,
  RunOutputEvent,
  RunStatusEvent,
  SessionStatusEvent,
} from "@berth/protocol";

/**
 * Events inside one runner that the socket layer (and, for scale-out, the Redis adapter) fans out: the
 * socket events of the same names (packages/protocol socket-events.ts), plus what only the runner needs.
 */
export type RunnerEventMap = {
  /**
   * `data` is whole UTF-8 characters; `bytes` is its length in the log, so offsets stay exact; `raw`, those bytes
   * as written (what a binary follower is sent, with no encode of `data` again).
   */
  "run:output": [RunOutputEvent & { sessionId: string; bytes: number; raw?: Buffer }];
  "run:status": [RunStatusEvent];
  "process:output": [ProcessOutputEvent & { bytes: number; raw?: Buffer }];
  "process:status": [ProcessStatusEvent];
  "file:changed": [FileChangedEvent];
  "session:status": [SessionStatusEvent];
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
