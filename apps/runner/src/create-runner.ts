import { createDatabase, createRepositories, restrictDataDir } from "@berth/db";
import type { SandboxDriver } from "@berth/sandbox";
import { DEFAULT_MCP_CALL_TIMEOUT_MS, McpClientGateway, createMcpToolProviders } from "@berth/mcp";
import { ApprovalService, BUILTIN_TOOLS, LoopGuard, ToolRouter } from "@berth/tools";
import { assertBuiltinsRegistered } from "@berth/tools";
import type { Env } from "./env";
import { AppError, redactSecrets } from "@berth/protocol";
import { ensureAdminToken } from "./auth/tokens";
import { authorize } from "./auth/authorize";
import { buildServer, requirePrincipal } from "./http/build-server";
import { createSandboxBackend } from "./create-sandbox-driver";
import { RunnerEvents } from "./events/runner-events";
import { ReceiptService } from "./receipts/receipt-service";
import { RunService } from "./runs/run-service";
import { ActiveRuns } from "./runs/active-runs";
import { FollowOn } from "./recovery/follow-on";
import { recoverInterruptedRuns } from "./recovery/recover-interrupted-runs";
import { SessionLeases } from "./cluster/session-leases";
import { RunnerDirectory } from "./cluster/runner-directory";
import { Failover } from "./cluster/failover";
import { createHolderProbe } from "./cluster/holder-probe";
import { SessionService } from "./sessions/session-service";
import { ToolService } from "./tools/tool-service";
import { RunnerMetrics } from "./metrics/runner-metrics";
import { createSocketServer } from "./sockets/socket-server";
import { BrowserSessions } from "./auth/browser-sessions";
import { registerBrowserSessionRoutes } from "./http/routes/browser-sessions-routes";
import { TerminalService } from "./terminals";
import { CredentialRevocation } from "./auth/credential-revocation";
import { ApiTokens } from "./auth/api-tokens";
import { connectCluster } from "./cluster/connect-cluster";
import { hostAllowList } from "./http/request-guard";
import { registerUserRoutes } from "./http/routes/users-routes";
import { registerSessionRoutes } from "./http/routes/sessions-routes";
import { registerDownloadRoutes } from "./http/routes/download-routes";
import { registerRunRoutes } from "./http/routes/runs-routes";
import { registerReceiptRoutes } from "./http/routes/receipts-routes";
import { registerApprovalRoutes } from "./http/routes/approvals-routes";
import { registerApprovalFileRoutes } from "./http/routes/approval-files-routes";
import { registerPolicyRoutes } from "./http/routes/policy-routes";
import { registerSkillRoutes } from "./http/routes/skills-routes";
import { registerSessionSkillRoutes } from "./http/routes/session-skills-routes";
import { SkillsService } from "./skills/skills-service";
import { SkillsMount } from "./skills/skills-mount";
import { ObservationOverflow } from "./tools/observation-overflow";
import { registerMcpRoutes } from "./http/routes/mcp-routes";
import { registerMcpServerRoutes } from "./http/routes/mcp-servers-routes";
import { registerPortRoutes } from "./ports/register-port-routes";
import { ContainerStdioLauncher } from "./mcp/container-stdio-launcher";
import { McpServersService } from "./mcp/mcp-servers-service";
import { needsMcpTools, toResolvedMcpTool } from "./mcp/to-resolved-mcp-tool";
import { FunctionToolCatalog } from "./function-tools/function-tool-catalog";
import { createForwarding } from "./cluster/create-forwarding";
import type { AnswerLinkedToolCall } from "./http/tool-call-fast-path";
import { DatabaseLogStore } from "./cluster/database-log-store";
import { LocalRunLogStore, runLogStoreKind, type RunLogStore } from "./cluster/run-log-store";
import { LogRetention } from "./runs/log-retention";

export interface Runner {
  /** Base URL once listening. */
  url: string;
  port: number;
  adminTokenWhere: string;
  interruptedOnStart: number;
  /** The sandbox driver, so a bench can time the agent RPC alone through the very connection tool calls use. */
  driver: SandboxDriver;
  /** Graceful stop: sockets, HTTP, in-flight runs marked interrupted, pool drained; sessions keep running. */
  close(): Promise<void>;
}

/**
 * Wires the runner: database, sandbox driver, receipts, runs, sessions, admission and approvals, tool
 * service, REST, socket.io and metrics. `main.ts` runs it from the environment; tests run it in-process.
 */
export async function createRunner(env: Env): Promise<Runner> {
  // A row written after its reply that fails is logged: nobody is waiting for it to throw at.
  const repos = createRepositories(await createDatabase({ dataDir: env.dataDir, databaseUrl: env.DATABASE_URL }), {
    onWriteError: (error) => process.stderr.write(`berth-runner: a write after the reply failed: ${(error as Error).message}\n`),
  });
  // Several runners (BERTH_REDIS_URL, docs/scale-out.md): the channels between them, for invalidations, approvals,
  // socket.io, live logs and forwarding; in-process for one runner.
  const cluster = await connectCluster(env, (line) => process.stderr.write(`berth-runner: ${line}\n`)).catch(async (error: unknown) => {
    await repos.close();
    throw error;
  });
  const admin = await ensureAdminToken(repos.users, { dataDir: env.dataDir, envToken: env.BERTH_ADMIN_TOKEN });
  const sandbox = createSandboxBackend(env);
  try {
    await sandbox.prepare();
  } catch (error) {
    await cluster.close();
    await repos.close();
    throw new AppError({ code: "sandbox_unavailable", message: (error as Error).message });
  }
  const dockerHealth = sandbox.health;
  const events = new RunnerEvents();
  const driver = sandbox.driver;
  driver.on("warning", (warning) => process.stderr.write(`berth-runner: sandbox ${warning.sessionId ?? "pool"}: ${warning.message}\n`));
  const receipts = await ReceiptService.open({
    receipts: repos.receipts,
    runnerKeys: repos.runnerKeys,
    runnerId: env.BERTH_RUNNER_ID,
    dataDir: env.dataDir,
    sandboxFacts: (sessionId) => {
      const info = driver.get(sessionId);
      return info?.imageId ? { imageId: info.imageId, posture: driver.posture(sessionId) } : null;
    },
    writes: repos.writes,
    log: (line) => process.stderr.write(`berth-runner: ${line}\n`),
  });
  // Everything made so far (database, keys, the admin token, files from before) private to this user.
  restrictDataDir(env.dataDir);
  // Run logs beside the files in PostgreSQL (BERTH_LOG_STORE), so any runner reads them and they outlive this one.
  const logStore: RunLogStore =
    runLogStoreKind(env) === "database"
      ? new DatabaseLogStore({ chunks: repos.runLogChunks, runs: repos.runs, bus: cluster.bus, dataDir: env.dataDir, events, log: (line) => process.stderr.write(`berth-runner: ${line}\n`) })
      : new LocalRunLogStore(env.dataDir);
  const runs = new RunService({ repos, dataDir: env.dataDir, events, driver, receipts, logSink: (runId, resume) => logStore.sinkFor(runId, resume) });
  const activeRuns = new ActiveRuns();
  const builtins = BUILTIN_TOOLS;
  // Fail closed: a declared built-in without its spec would be listed to callers and then not run.
  assertBuiltinsRegistered(builtins);
  const builtinNames = new Set(builtins.map((spec) => spec.name));
  // berth.tools.json of each session's workspace, re-read when its content hash changes.
  const functionTools = new FunctionToolCatalog({ driver, reserved: () => builtinNames });
  // MCP client gateway: http servers contacted by the runner, stdio servers started inside each session's container.
  const gateway = new McpClientGateway({
    pins: repos.mcpToolPins,
    allowPrivateUserServers: env.BERTH_MCP_ALLOW_PRIVATE_USER_URLS,
    stdio: new ContainerStdioLauncher({
      driver,
      sessionEnv: (sessionId) => repos.sessions.envOf(sessionId),
    }),
    reservedNames: (scope) => [...builtinNames, ...functionTools.names(scope.sessionId)],
    // Never carries header values (the gateway's promise); the server is named so an operator can act.
    onError: (error, context) => {
      const message = error instanceof Error ? error.message : String(error);
      // The SDK reports its own SSE stream being aborted when we close a connection on purpose: not news.
      if (/\bAbortError\b/.test(message)) return;
      // An SDK error may quote the server's URL (userinfo) or a header: masked like every secret (redactSecrets).
      process.stderr.write(`berth-runner: MCP server ${context.serverName} (${context.serverId}): ${redactSecrets(message, mcpServers.knownSecrets())}\n`);
    },
  });
  const mcpServers = new McpServersService({
    repos,
    gateway,
    onInvalid: (serverId, message) => process.stderr.write(`berth-runner: MCP server ${serverId} skipped: ${message}\n`),
  });
  // Credential and session caches hear every revocation and session write through this bus (auth/invalidation-bus.ts),
  // and with several runners every runner's caches do (cluster/cluster-invalidation-bus.ts).
  const invalidation = cluster.invalidation;
  // Which runner holds which session: created or adopted here, held here under a lease renewed every lease/3.
  const logLine = (line: string) => process.stderr.write(`berth-runner: ${line}\n`);
  const leases = new SessionLeases({ leases: repos.leases, driver, runnerId: env.BERTH_RUNNER_ID, leaseMs: env.BERTH_SESSION_LEASE_MS, onError: (error) => logLine(`could not renew session leases: ${(error as Error).message}`), log: logLine });
  const directory = new RunnerDirectory({ repos, runnerId: env.BERTH_RUNNER_ID, heartbeatMs: Math.max(1, Math.floor(env.BERTH_SESSION_LEASE_MS / 3)), onError: (error) => logLine(`could not write the runner heartbeat: ${(error as Error).message}`) });
  const sessions = new SessionService({
    repos,
    invalidation,
    leases,
    driver,
    events,
    onTerminated: async (t) => {
      await gateway.closeSession(t.sessionId);
      await runs.interruptSession(t.sessionId, t.cause);
    },
    onRemoved: async (sessionId) => {
      functionTools.forget(sessionId);
      // The cut results' copies go with their session (a failure to remove them is logged, not thrown at the caller).
      await overflow.forget(sessionId).catch((error: unknown) => process.stderr.write(`berth-runner: could not remove ${sessionId}'s overflow copies: ${(error as Error).message}\n`));
      // Its runs' logs go with it (docs/scale-out.md, Lifecycle); a failure is logged, the session is gone either way.
      await logStore.removeSession(sessionId).catch((error: unknown) => process.stderr.write(`berth-runner: could not remove ${sessionId}'s run logs: ${(error as Error).message}\n`));
      return gateway.closeSession(sessionId);
    },
  });
  const approvalStore = repos.approvals;
  const approvals = new ApprovalService({ store: approvalStore });
  approvals.on("approval:created", (request) => events.emit("approval:created", request));
  approvals.on("approval:decided", (request) => events.emit("approval:decided", request));
  await cluster.shareApprovals(approvals);
  const metrics = new RunnerMetrics({
    sessions: () => repos.sessions.countLive(),
    runsByOutcome: () => repos.runs.countByOutcome(),
    approvalsPending: () => repos.approvals.countPending(),
  });
  // Precedence (docs/tools.md): built-in → user MCP → local function tools → session MCP → global MCP.
  const mcp = createMcpToolProviders(gateway, (tool, scope) => toResolvedMcpTool(gateway, tool, scope));
  const router = new ToolRouter(builtins, [mcp.user, functionTools.provider, mcp.session, mcp.global]);
  const skills = new SkillsService({ skills: repos.skills, sessionSkills: repos.sessionSkills, invalidation });
  const overflow = new ObservationOverflow({ dataDir: env.dataDir, runOf: (runId) => repos.runs.get(runId), logs: logStore });
  const tools = new ToolService({
    repos,
    driver,
    router,
    sessions,
    runs,
    approvals,
    loopGuard: new LoopGuard(),
    events,
    metrics,
    receipts,
    dataDir: env.dataDir,
    activeRuns,
    skills,
    overflow,
    logs: logStore,
    observation: { poolBytes: env.BERTH_OBSERVATION_POOL_BYTES, caps: env.BERTH_OBSERVATION_CAPS },
    limits: { mcpApprovalWaitMs: env.BERTH_MCP_APPROVAL_WAIT_MS, mcpCallTimeoutMs: DEFAULT_MCP_CALL_TIMEOUT_MS },
    functionTools,
    // A built-in that reaches no MCP or function tool has nothing to prepare: no promise to wait for.
    prepareScope: (scope, tool, opts) => {
      if (!needsMcpTools(tool, builtinNames)) return undefined;
      return (async () => {
        // First: the function tools' names are reserved when the MCP tools are projected. Once per caller turn: a
        // gateway call's capability, a dispatch task, runs against the file as its turn began (what admission judged).
        if (!opts?.nested) await functionTools.refresh(scope.sessionId);
        await mcpServers.refreshIfStale();
        return gateway.prepare(scope);
      })();
    },
  });

  await mcpServers.load();
  // Before reconcile: adopted sandboxes get the skill catalog when they become ready, like new ones.
  const skillsMount = new SkillsMount({ skills: repos.skills, driver, log: (message) => process.stderr.write(`berth-runner: ${message}\n`) });
  const legacySkills = await skills.upgradeLegacyHashes();
  if (legacySkills.length > 0) process.stderr.write(`berth-runner: skill hashes now cover activation: ${legacySkills.join(", ")}\n`);
  await skillsMount.start();
  await sessions.reconcile();
  leases.start();
  // After reconcile: what a crashed runner left running in an adopted container is stopped there and recorded;
  // only in the sessions this runner holds (another live runner's runs are its own).
  // A run another runner wrote is sealed from its log as the database holds it, copied here first.
  const recoveryDeps = { repos, dataDir: env.dataDir, driver, receipts, completeLogs: (runId: string) => logStore.completeFromDatabase(runId) };
  const recovery = await recoverInterruptedRuns(recoveryDeps, { reason: "runner_restart", sessions: new Set(await repos.leases.recoverableBy(env.BERTH_RUNNER_ID)) });
  // Before failover: a taken session's terminals are followed on by this service.
  const terminals = new TerminalService({ repos, driver, sessions, runs, dataDir: env.dataDir });
  // What a dead runner's terminals and background processes still run is taken up where their logs end.
  const followOn = new FollowOn({ dataDir: env.dataDir, driver, runs, terminals, completeLogs: recoveryDeps.completeLogs, sessionEnv: async (id) => (await repos.sessions.get(id))?.env ?? null });
  // A dead runner's sessions, once their lease lapses: taken over here, one compare-and-set each.
  const failover = new Failover({
    leases,
    repo: repos.leases,
    driver,
    settle: (sessionId, outcome) => sessions.settleTakeOver(sessionId, outcome),
    recover: async (sessionId, fromRunnerId) => {
      await recoverInterruptedRuns({ ...recoveryDeps, followOn: (run) => followOn.follow(run) }, { reason: "runner_failover", sessions: new Set([sessionId]), fromRunnerId });
    },
    log: logLine,
    // A holder late to renew but still listening (busy, not dead) keeps its sessions for a grace period.
    holderAnswers: createHolderProbe(repos.runners),
  });
  await driver.start();
  await failover.sweep();
  failover.start();

  // The runner's own port is known once it listens (tests listen on port 0).
  let listeningPort = env.BERTH_RUNNER_PORT;
  // The address other runners reach this one at is a name it answers to (they forward with it as Host).
  const runnerHost = env.BERTH_RUNNER_URL ? [new URL(env.BERTH_RUNNER_URL).host] : [];
  const hosts = hostAllowList({ allowedHosts: [...env.BERTH_ALLOWED_HOSTS, ...runnerHost], ports: () => [env.BERTH_WEB_PORT, listeningPort] });
  const revocation = new CredentialRevocation(invalidation);
  const browserSessions = new BrowserSessions({ repos, ttlMs: env.BERTH_BROWSER_SESSION_HOURS * 3_600_000, revocation, invalidation });
  const apiTokens = new ApiTokens({ users: repos.users, invalidation });
  // Several runners: what needs a session's sandbox goes to the runner holding it (docs/scale-out.md).
  const forwarding = createForwarding({
    env,
    repos,
    // The lease row names the holder, the Runner row its URL; a lapsed lease, nobody (failover is about to adopt it).
    ownerOf: (sessionId) => directory.ownerOf(sessionId),
    holdsLocally: (sessionId) => driver.get(sessionId) !== undefined,
    hosts,
    log: (message) => process.stderr.write(`berth-runner: ${message}\n`),
  });
  const app = buildServer({ repos, dockerHealth, redisHealth: () => cluster.health(), logLevel: env.BERTH_LOG_LEVEL, browserSessions, apiTokens, hosts, tools, ...(forwarding ? { forwardEarly: forwarding.http.early } : {}), ...(forwarding?.peers ? { linkedToolCalls: (answer: AnswerLinkedToolCall) => forwarding.peers!.serve(answer) } : {}) });
  // The other runners' links (cluster/peer-link.ts) arrive as an upgrade on this runner's own port.
  forwarding?.peers?.attach(app.server);
  registerUserRoutes(app, { repos, revocation, sessions });
  registerSessionRoutes(app, { sessions, tools });
  registerDownloadRoutes(app, { sessions, driver });
  registerRunRoutes(app, { repos, dataDir: env.dataDir, cancel: { runs: repos.runs, driver, events, activeRuns }, logs: logStore });
  registerReceiptRoutes(app, { repos, dataDir: env.dataDir, receipts, webOrigin: env.webOrigin, approvals, logs: logStore });
  registerApprovalRoutes(app, { approvals, store: approvalStore });
  registerApprovalFileRoutes(app, { approvals, sessions, driver });
  registerPolicyRoutes(app, { repos, onChange: () => tools.invalidatePolicy() });
  registerBrowserSessionRoutes(app, { browserSessions });
  registerSkillRoutes(app, { repos, onChange: () => skillsMount.refresh() });
  registerSessionSkillRoutes(app, { sessions, skills, onChange: () => skillsMount.refresh() });
  registerMcpRoutes(app, { sessions, tools, approvalWaitMs: env.BERTH_MCP_APPROVAL_WAIT_MS });
  registerMcpServerRoutes(app, { mcpServers });
  registerPortRoutes(app, { repos, driver, sessions, browserSessions, apiTokens, hosts, ...(forwarding ? { forward: forwarding.http } : {}) });
  app.get("/metrics", async (request, reply) => {
    authorize(requirePrincipal(request), "metrics", "read");
    return reply.header("content-type", metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  const io = createSocketServer(app.server, { repos, ...(cluster.socketAdapter ? { adapter: cluster.socketAdapter } : {}), browserSessions, apiTokens, events, cancel: { runs: repos.runs, driver, events, activeRuns }, sessions, tools, dataDir: env.dataDir, webOrigin: env.webOrigin, hosts, revocation, terminals, logs: logStore, ...(forwarding ? { relay: forwarding.sockets } : {}) });
  // Before listening: an event another runner broadcasts from now on reaches this runner's sockets.
  await cluster.settled();
  const expiry = setInterval(() => void approvals.expireDue().catch(() => undefined), 30_000);
  expiry.unref();
  const retention = new LogRetention({ runs: repos.runs, logs: logStore, days: env.BERTH_LOG_RETENTION_DAYS, log: logLine });
  retention.start();

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(expiry);
      await retention.stop();
      await failover.stop();
      directory.close();
      forwarding?.http.close();
      await io.close().catch(() => undefined);
      // Before the server's close, which waits for every socket to end, the peers' links too: calls in flight over
      // them finish as requests in flight do.
      await Promise.all([forwarding?.peers?.close(), app.close().catch(() => undefined)]);
      await runs.interruptAll("runner_shutdown").catch(() => undefined);
      await logStore.close().catch(() => undefined);
      // Stdio MCP servers stop with their connection; the session containers themselves keep running.
      await gateway.close().catch(() => undefined);
      // Session containers keep running for the next runner to adopt; the warm pool is drained.
      // Leases are kept: a runner restarted within a lease keeps its sessions; one that stays down loses them.
      leases.stop();
      await driver.close().catch(() => undefined);
      await cluster.close().catch(() => undefined);
      await repos.close();
    })();
    return closing;
  };

  try {
    await app.listen({ host: env.BERTH_HOST, port: env.BERTH_RUNNER_PORT });
  } catch (error) {
    await close();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new AppError({ code: "conflict", message: `port ${env.BERTH_RUNNER_PORT} on ${env.BERTH_HOST} is in use: stop what holds it or set BERTH_RUNNER_PORT` });
    }
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : env.BERTH_RUNNER_PORT;
  listeningPort = port;
  await directory.register(env.BERTH_RUNNER_URL ?? `http://${env.BERTH_HOST}:${port}`);
  return {
    url: `http://${env.BERTH_HOST}:${port}`,
    port,
    adminTokenWhere: admin.source === "env" ? "BERTH_ADMIN_TOKEN" : (admin.file ?? ""),
    interruptedOnStart: recovery.interrupted,
    driver,
    close,
  };
}
