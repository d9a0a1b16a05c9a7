/**
 * `@toolmark/protocol`: bridge protocol v1 as data. Message types, the codes and messages results carry, a dependency-free
 * validator, the JSON Schemas, inbound bounding, and server helpers for LLM exposure. Nothing here
 * touches the DOM, so servers import it from Node.
 */

export { type BoundedCopyLimits, type BoundedCopyResult, boundedCopy } from './bounded-copy.ts'
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
} from './chat.ts'
export { MAX_MESSAGE_LENGTH } from './chat.ts'
export {
  ERROR_MESSAGES,
  REFUSED_CODE_MESSAGES,
  REFUSED_CODES,
  REFUSED_MESSAGES,
  type RefusedCode,
  TOOL_FAILED_MESSAGE,
  UNKNOWN_TOOL_MESSAGE,
} from './codes.ts'
export {
  AGENT_SYSTEM_PROMPT,
  EMPTY_MANIFEST_TEXT,
  FOLLOW_UP_SYSTEM_PROMPT,
  type LlmToolDefinition,
  MANIFEST_SEPARATOR,
  type ModelResult,
  modelResult,
  PAGE_CALL_PREAMBLE,
  PAGE_CALL_TOOL,
  PAGE_DESCRIBE_TOOL,
  pageCallTool,
  renderManifest,
  STRUCTURED_NOTE,
  type StructuredOk,
  UNTRUSTED_NOTE,
  type UntrustedEnvelope,
  wrapUntrusted,
} from './llm.ts'
export type { Json, JsonSchema, Manifest, ToolHints, ToolManifest, ToolManifestSummary } from './manifest.ts'
export {
  type AgentToPageMessage,
  type CallMessage,
  type CancelMessage,
  type ChangedMessage,
  type ConfirmedMessage,
  DEFAULT_MAX_MESSAGE_BYTES,
  type DescribeMessage,
  MAX_DEPTH,
  MAX_ID_LENGTH,
  type ManifestMessage,
  type MessageDirection,
  type PageToAgentMessage,
  PROTOCOL_VERSION,
  type ProtocolMessage,
  type ResultMessage,
} from './messages.ts'
export type { AgentMessage, LlmTool, Provider, ProviderEvent, ProviderRequest, ToolCall } from './model.ts'
export type {
  CancelledBy,
  CancelledResult,
  ErrorResult,
  FieldChange,
  InvalidResult,
  Issue,
  NeedsConfirmationResult,
  OkResult,
  RefusedResult,
  ToolResult,
} from './results.ts'
export { protocolSchemas } from './schemas.ts'
/** The secret rules every server masks with, as data (patterns, word lists, limits). */
export * as SECRETS from './secrets.ts'
export {
  CARD_KEY_JOINED_SOURCE,
  CARD_KEY_MIN_DIGITS,
  CARD_MASK_PREFIX,
  CARD_NUMBER_DIGITS,
  CARD_NUMBER_SOURCE,
  CODE_MASK,
  CODE_SOURCE,
  KEY_SPLIT_SOURCE,
  KEY_WORD_STEPS,
  MASKED,
  MAX_MASK_DEPTH,
  MAX_SENSITIVE_PATH_CHARS,
  MAX_SENSITIVE_PATHS,
  MAX_SPLIT_KEY_LENGTH,
  MIN_SECRET_LENGTH,
  PASSWORD_SOURCE,
  SECRET_KEY_JOINED_SOURCE,
  SECRET_KEY_WORDS,
  SECRET_PROMPT_RULE,
} from './secrets.ts'
export { UNSUPPORTED_PROTOCOL, type ValidationResult, validateMessage } from './validate.ts'
export {
  CONFIRM_TTL_MS,
  EXPIRED_RESULT,
  NO_PAGE_RESULT,
  PROVIDER_LIMITS,
  REJECT_REASONS,
  TIMEOUT_RESULT,
  VALIDATION,
  WIRE_HEADERS,
  WIRE_LIMITS,
  WIRE_NAMES,
} from './wire.ts'
