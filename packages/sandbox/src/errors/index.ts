export { SandboxError, sandboxNotRunning, type SandboxErrorReason } from "./sandbox-error";
