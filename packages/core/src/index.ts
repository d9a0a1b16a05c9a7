// Public barrel for "@toolmark/core".

export { UNDO_CAPACITY } from './call/undo.ts'
export {
  ERROR_EVENT_CODES,
  ERROR_MESSAGES,
  type ErrorEventCode,
  REENTER_SENSITIVE,
  REFUSED_CODES,
  REFUSED_MESSAGES,
  type RefusedCode,
  THROWN_CODES,
  type ThrownCode,
  type ToolmarkErrorCode,
} from './codes.ts'
export { MAX_PENDING_CONFIRMATIONS } from './confirm/pending.ts'
export { type ConfirmQueue, createConfirmQueue } from './confirm/queue.ts'
export { environment } from './env.ts'
export { isToolmarkError, ToolmarkError } from './errors.ts'
export { newId } from './ids.ts'
export { DEFAULTS } from './options.ts'
export { fromJsonSchema } from './schema/json-schema.ts'
export { flatten, getPath, setPath } from './schema/paths.ts'
export { isValidName, llmName } from './tool/names.ts'
export { MAX_PENDING_PER_SCOPE } from './tool/queue.ts'
export { REDACTED } from './tool/redact.ts'
export { cancelled, error, invalid, isToolResult, ok, refused } from './tool/result.ts'
export { toJsonSafe, toJsonSafeResult } from './tool/serialize.ts'
export { createToolmark } from './toolmark.ts'
export * from './types.ts'
