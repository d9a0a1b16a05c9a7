// Public barrel for "@toolmark/core".
export * from './types.ts'
export {
  REFUSED_CODES,
  ERROR_EVENT_CODES,
  THROWN_CODES,
  ERROR_MESSAGES,
  REFUSED_MESSAGES,
  REENTER_SENSITIVE,
  type RefusedCode,
  type ErrorEventCode,
  type ThrownCode,
  type ToolmarkErrorCode,
} from './codes.ts'
export { ToolmarkError, isToolmarkError } from './errors.ts'
export { ok, invalid, refused, cancelled, error, isToolResult } from './call/result.ts'
export { toJsonSafe, toJsonSafeResult } from './call/serialize.ts'
export { createToolmark, DEFAULTS } from './toolmark.ts'
export { createConfirmQueue, type ConfirmQueue } from './confirm/queue.ts'
export { MAX_PENDING_CONFIRMATIONS } from './confirm/pending.ts'
export { MAX_PENDING_PER_SCOPE } from './registry/queue.ts'
export { UNDO_CAPACITY } from './call/undo.ts'
export { REDACTED } from './confirm/redact.ts'
export { fromJsonSchema } from './schema/json-schema.ts'
export { getPath, setPath, flatten } from './schema/paths.ts'
export { newId } from './ids.ts'
export { environment } from './env.ts'
export { isValidName, llmName } from './registry/names.ts'
