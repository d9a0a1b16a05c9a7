// "@toolmark/svelte/chat": a chat with the agent of a `@toolmark/server`, for pages whose bridge talks to it.
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
export { default as AgentChat } from './AgentChat.svelte'
export { type AgentChatOptions, type AgentChatStore, agentChat } from './agentChat.js'
export { default as ToolPartView } from './ToolPartView.svelte'
