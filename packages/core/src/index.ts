// Public barrel for "@toolmark/core": what an app uses (the registry, result helpers, the confirm queue,
// JSON Schema and path helpers, the codes an app checks, the types). What adapters, consumers and add-on
// packages build on (limits, defaults, ids, names, serialization, redaction, the environment seam) is
// "@toolmark/core/adapter".

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
export { type ConfirmQueue, createConfirmQueue } from './confirm/queue.ts'
export { isToolmarkError, ToolmarkError } from './errors.ts'
export { MAX_CONTEXT_CHARS } from './registry/context.ts'
export { fromJsonSchema } from './schema/json-schema.ts'
export { flatten, getPath, setPath } from './schema/paths.ts'
export { REDACTED } from './tool/redact.ts'
export { cancelled, error, invalid, isToolResult, ok, refused } from './tool/result.ts'
export { createToolmark } from './toolmark.ts'
export * from './types.ts'
