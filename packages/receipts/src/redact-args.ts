import { redactSecrets } from "@berth/protocol";
import type { JsonValue } from "@berth/protocol";

// The rule itself lives in @berth/protocol (redact-secrets.ts): one rule for receipts, rows and logs.
export { REDACTED, envKeys, isSecretKey, redactString } from "@berth/protocol";
export type { JsonValue } from "@berth/protocol";

/** The arguments as a receipt may store them (redactSecrets): env keys only, secrets masked. */
export function redactArgs(args: unknown, knownSecrets: Iterable<string> = []): JsonValue {
  return redactSecrets(args, knownSecrets);
}
