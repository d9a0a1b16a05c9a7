// "@toolmark/vue/chat": a chat with the agent of a `@toolmark/server`, for pages whose bridge talks to it.
export {
  type AgentConversation,
  type AgentConversationOptions,
  agentConversation,
  type ChatEvent,
  type ChatMessage,
  type ChatSnapshot,
  type ConversationBody,
  DEFAULT_CONVERSATION_KEY,
  MAX_MESSAGE_LENGTH,
  type StreamingMessage,
  type ToolPart,
  type ToolPartState,
} from '@toolmark/bridge/chat'
export { AgentChat, ToolPartView } from './AgentChat.ts'
export { type AgentChatState, type UseAgentChatOptions, useAgentChat } from './useAgentChat.ts'
