import type { ReceiptInput } from "./build-receipt-body";
import { sha256Hex } from "./sha256-hex";

/**
 * A realistic run_script receipt input with every field filled (no nulls), for tests here and in the
 * runner. Holds secrets on purpose — env values, a token arg — to prove they never reach a receipt.
 */
export function sampleReceiptInput(overrides: Partial<ReceiptInput> = {}): ReceiptInput {
  const script = "import os\nprint(os.environ['API_TOKEN'][:2])\n";
  return {
    id: "rcpt_0001",
    issuedAt: "2026-11-30T10:00:02.000Z",
    run: { id: "run_0001", sessionId: "ses_0001", userId: "usr_dev", tool: "run_script", actionClass: "execute" },
    args: {
      interpreter: "python3",
      script: "main.py",
      args: ["--verbose", "--api-key=sk-live-abcdefghijklmnopqrstuvwxyz"],
      env: { API_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789", MODE: "fast" },
      timeoutMs: 60000,
      githubToken: "ghp_zyxwvutsrqponmlkjihgfedcba9876543210",
    },
    env: { API_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789", MODE: "fast", LANG: "C.UTF-8" },
    script: { path: "main.py", sha256: sha256Hex(script), bytes: Buffer.byteLength(script) },
    inputs: [{ path: "data/in.csv", sha256: sha256Hex("a,b\n1,2\n"), bytes: 8 }],
    outputs: [{ path: "out/result.json", status: "created", sha256: sha256Hex('{"ok":true}'), bytes: 11 }],
    outcome: "succeeded",
    exitCode: 0,
    timing: {
      startedAt: "2026-11-30T10:00:00.000Z",
      endedAt: "2026-11-30T10:00:01.250Z",
      durationMs: 1250,
      approvalWaitMs: 4200,
    },
    logs: [
      { name: "stdout", sha256: sha256Hex("gh\n"), bytes: 3 },
      { name: "stderr", sha256: sha256Hex(""), bytes: 0 },
    ],
    sandbox: {
      imageId: "sha256:5f1c0e4a9d7b3e2f1a0c9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f",
      posture: {
        user: "1000:1000",
        readOnlyRootfs: true,
        capDrop: ["ALL"],
        noNewPrivileges: true,
        network: "none",
        init: true,
        pidsLimit: 256,
        memoryBytes: 1073741824,
        nanoCpus: 1000000000,
        tmpfs: ["/tmp"],
      },
    },
    approvals: [
      {
        id: "apr_0001",
        approvedBy: "usr_operator",
        approvedAt: "2026-11-30T09:59:58.000Z",
        sha256: sha256Hex("run_script python3 main.py"),
      },
    ],
    ...overrides,
  };
}
