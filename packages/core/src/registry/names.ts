// Moved to tool/names.ts; this path stays until the adapter imports it from there.
export * from '../tool/names.ts'
