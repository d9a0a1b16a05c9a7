/**
 * The public types, one file per area: results and manifests belong to the protocol
 * (`@toolmark/protocol`, re-exported here); the rest lives in `types/`. Import them from here.
 */
export type {
  CancelledBy,
  CancelledResult,
  ErrorResult,
  FieldChange,
  InvalidResult,
  Issue,
  Json,
  JsonSchema,
  Manifest,
  NeedsConfirmationResult,
  OkResult,
  RefusedResult,
  ToolHints,
  ToolManifest,
  ToolManifestSummary,
  ToolResult,
} from '@toolmark/protocol'
export type * from './types/confirm.ts'
export type * from './types/context.ts'
export type * from './types/events.ts'
export type * from './types/grants.ts'
export type * from './types/options.ts'
export type * from './types/policy.ts'
export type * from './types/tool.ts'
export type * from './types/toolmark.ts'
