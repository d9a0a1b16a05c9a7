/**
 * The public types, one file per area: results and manifests belong to the protocol
 * (`protocol/results.ts`, `protocol/manifest.ts`); the rest lives in `types/`. Import them from here.
 */
export type * from './protocol/manifest.ts'
export type * from './protocol/results.ts'
export type * from './types/confirm.ts'
export type * from './types/events.ts'
export type * from './types/options.ts'
export type * from './types/policy.ts'
export type * from './types/tool.ts'
export type * from './types/toolmark.ts'
