import crypto from "node:crypto";
import { pingDatabase, postgresUrlOf, type Database } from "../create-database";
import { ApprovalRepository } from "./approval-repository";
import { BrowserSessionRepository } from "./browser-session-repository";
import { McpServerRepository } from "./mcp-server-repository";
import { McpToolPinRepository } from "./mcp-tool-pin-repository";
import { PolicyRuleRepository } from "./policy-rule-repository";
import { ReceiptRepository } from "./receipt-repository";
import { RunnerRepository } from "./runner-repository";
import { RunLogChunkRepository } from "./run-log-chunk-repository";
import { RunRepository } from "./run-repository";
import { RunnerKeyRepository } from "./runner-key-repository";
import { SessionLeaseRepository } from "./session-lease-repository";
import { SessionRepository } from "./session-repository";
import { SessionSkillRepository } from "./session-skill-repository";
import { SkillRepository } from "./skill-repository";
import { ToolCallRepository } from "./tool-call-repository";
import { UserRepository } from "./user-repository";
import { WriteBehind } from "./write-behind";

/** Everything the runner reads and writes, by resource; nothing outside this package touches Prisma. */
export interface Repositories {
  sessions: SessionRepository;
  /** Which runner holds which session, under a lease (several runners on one database). */
  leases: SessionLeaseRepository;
  /** One row per runner: its URL and heartbeat. */
  runners: RunnerRepository;
  runs: RunRepository;
  /** Run logs in the database (BERTH_LOG_STORE=database). */
  runLogChunks: RunLogChunkRepository;
  toolCalls: ToolCallRepository;
  approvals: ApprovalRepository;
  receipts: ReceiptRepository;
  /** Every runner's receipt signing key (GET /api/receipts/keys). */
  runnerKeys: RunnerKeyRepository;
  skills: SkillRepository;
  /** Which skills are active in which session. */
  sessionSkills: SessionSkillRepository;
  mcpServers: McpServerRepository;
  mcpToolPins: McpToolPinRepository;
  users: UserRepository;
  browserSessions: BrowserSessionRepository;
  policyRules: PolicyRuleRepository;
  /** Writes made after the reply (tool-call rows, run ends, receipts); reads of their tables wait for them. */
  writes: WriteBehind;
  /** A cheap round trip for /healthz. */
  ping(): ReturnType<typeof pingDatabase>;
  /** Closes the connection (the runner's shutdown), once what was written behind is written. */
  close(): Promise<void>;
}

export function createRepositories(db: Database, opts: { onWriteError?: (error: unknown) => void } = {}): Repositories {
  const writes = new WriteBehind(opts.onWriteError);
  const runLogChunks = new RunLogChunkRepository(db, postgresUrlOf(db));
  return {
    sessions: new SessionRepository(db),
    leases: new SessionLeaseRepository(db),
    runners: new RunnerRepository(db),
    runs: new RunRepository(db, writes),
    runLogChunks,
    toolCalls: new ToolCallRepository(db, writes),
    approvals: new ApprovalRepository(db),
    receipts: new ReceiptRepository(db, writes),
    runnerKeys: new RunnerKeyRepository(db),
    skills: new SkillRepository(db),
    sessionSkills: new SessionSkillRepository(db),
    mcpServers: new McpServerRepository(db),
    mcpToolPins: new McpToolPinRepository(db, () => `pin_${crypto.randomBytes(12).toString("hex")}`),
    users: new UserRepository(db),
    browserSessions: new BrowserSessionRepository(db),
    policyRules: new PolicyRuleRepository(db),
    writes,
    ping: () => pingDatabase(db),
    close: async () => {
      await writes.settled();
      await runLogChunks.close();
      await db.$disconnect();
    },
  };
}
