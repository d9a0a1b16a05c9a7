// "@toolmark/bridge/chat": the chat with the agent of a `@toolmark/server`, outside any framework. The React, Vue
// and Svelte chats are built on it.
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
  type ToolProgress,
  type ToolProgressEvent,
} from './conversation.ts'
export {
  type ChatSnapshot,
  type ChatState,
  type ChatStateOptions,
  chatState,
  mergeMessage,
  mergePart,
  type StreamingMessage,
} from './state.ts'
