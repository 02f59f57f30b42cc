export {
  AgentConnection,
  type AgentCallOptions,
  type AgentConnectionEvents,
  type AgentConnectionOptions,
  type AgentStreams,
  type ResultSchema,
} from "./agent-connection";
