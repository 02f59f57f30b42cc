// The client process of runCallersInChild (http-callers.ts): one job from the parent, its report back.
import { runCallers, type CallersJob } from "./http-callers";

process.once("message", (job: CallersJob) => {
  runCallers(job).then(
    (report) => process.send?.({ report }),
    (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
  );
});
