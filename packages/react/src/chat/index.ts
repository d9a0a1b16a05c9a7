'use client'
export {
  type AgentConversation,
  type AgentConversationOptions,
  agentConversation,
  type ChatEvent,
  type ChatMessage,
  type ConversationBody,
  DEFAULT_CONVERSATION_KEY,
  MAX_MESSAGE_LENGTH,
  refusalReason,
  type TextDeltaEvent,
  type ToolEvent,
  type ToolPart,
  type ToolPartState,
} from '@toolmark/bridge/chat'
// "@toolmark/react/chat": a chat with the agent of a `@toolmark/server`, for pages whose bridge talks to it.
export { AgentChat, type AgentChatProps, type ToolPartProps, ToolPartView } from './AgentChat.tsx'
export {
  type AgentChatState,
  mergeMessage,
  mergePart,
  type StreamingMessage,
  type UseAgentChatOptions,
  useAgentChat,
} from './useAgentChat.ts'
export { type ChatWithApprovals, useChatApprovals } from './useChatApprovals.ts'
