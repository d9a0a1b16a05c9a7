// The offline planner (providers/embedded) reads the agent's types from here; they live in @toolmark/server.
export type {
  AgentMessage,
  LlmTool,
  Provider,
  ProviderEvent,
  ProviderRequest,
  ToolCall,
} from '@toolmark/server'
