/*
 * The chat contract between the agent server and a chat page: its HTTP bodies and event stream. It is
 * written once, in `@toolmark/protocol`, which the bridge's chat client reads too; the Laravel package
 * produces the same shapes.
 */

export type {
  ChatEvent,
  ChatMessage,
  ConversationBody,
  CreatedBody,
  ErrorBody,
  MessageRequestBody,
  TextDeltaEvent,
  ToolEvent,
  ToolPart,
  ToolPartState,
  ToolProgress,
  ToolProgressEvent,
} from '@toolmark/protocol'
export { MAX_MESSAGE_LENGTH } from '@toolmark/protocol'
