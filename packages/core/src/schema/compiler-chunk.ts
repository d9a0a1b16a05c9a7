/**
 * What `lazy.ts` loads with `import()`: the compiler, and the validator it makes of a tool's
 * schema. Only that dynamic import reaches this module, so bundlers do not warn when an app also
 * imports `json-schema.ts` statically (forms, wizards, tours, server tools): the compiler is then
 * part of the initial bundle and this chunk only re-exports it. The published build makes it a
 * standalone file (`dist/schema-compiler.mjs`, see tsdown.config.ts), so that no chunk is imported
 * both ways and every bundler leaves the compiler out of the initial bundle.
 */
export { compiledValidator } from './compiled-validator.ts'
export { fromJsonSchema } from './json-schema.ts'
