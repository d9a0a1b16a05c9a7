/** The model contract the agent loop speaks: defined once in `@toolmark/protocol`. */
export type {
  AgentMessage,
  LlmTool,
  Provider,
  ProviderEvent,
  ProviderRequest,
  ToolCall,
} from '@toolmark/protocol'
