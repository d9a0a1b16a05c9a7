// Public barrel for "@toolmark/core" (filled in as the registry lands).
export * from './types.ts'
export * from './codes.ts'
export { ToolmarkError, isToolmarkError } from './errors.ts'
export { ok, invalid, refused, cancelled, error, isToolResult } from './call/result.ts'
export { newId } from './ids.ts'
export { environment } from './env.ts'
export { isValidName, llmName } from './registry/names.ts'
