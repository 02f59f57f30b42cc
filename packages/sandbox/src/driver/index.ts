export type {
  AdoptOutcome,
  LiveSession,
  ReconcileReport,
  SandboxCallOptions,
  SandboxDriver,
  SandboxDriverEventName,
  SandboxDriverEvents,
  SandboxDriverListener,
  SandboxSpec,
  SessionOutputEvent,
  SessionProcessStatusEvent,
} from "./sandbox-driver";
export { callDeadlineMs } from "./call-deadline";
