// Moved to tool/serialize.ts; this path stays until mcp (moving out of core) imports it from there.
export * from '../tool/serialize.ts'
