// Moved to cancel-token.ts; this path stays until mcp (moving out of core) imports it from there.
export * from '../cancel-token.ts'
