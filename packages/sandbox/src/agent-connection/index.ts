export {
  AgentConnection,
  type AgentCallOptions,
  type AgentOutput,
  type AgentConnectionEvents,
  type AgentConnectionOptions,
  type AgentStreams,
  type ResultSchema,
} from "./agent-connection";
export { demuxDockerStream } from "./docker-demux";
export { DEFAULT_LOG_BUDGET, LogBudget, boundLine, type LogBudgetOptions } from "./log-budget";
