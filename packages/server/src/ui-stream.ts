/**
 * `@toolmark/server/ui-stream`: a route handler that speaks the AI SDK 7 UI message stream, so an app's
 * unchanged `useChat` drives a Toolmark conversation (page tools as typed tool parts, deferred confirmations
 * as tool approvals). See docs/guides/use-chat.md.
 */
export {
  errorTextOf,
  UI_MESSAGE_STREAM_HEADERS,
  type UiChunk,
  type UiMessage,
  type UiMessageStreamOptions,
  type UiStreamServer,
  uiMessageStreamHandler,
  uiMessageStreamRoute,
  uiMessagesOf,
} from './http/ui-stream.ts'
