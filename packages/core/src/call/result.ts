// Moved to tool/result.ts; this path stays until the adapter and mcp tests import it from there.
export * from '../tool/result.ts'
