// "@toolmark/core/adapter": the framework-agnostic pieces every adapter (React, Vue, Svelte, …)
// binds to its own lifecycle, written once here so the adapters stay thin and identical.

// What consumers and add-on packages (@toolmark/bridge, forms, tours, @toolmark/mcp) build on from the
// core's internals: limits and defaults, ids, names, serialization, redaction and the environment seam.
export { UNDO_CAPACITY } from '../call/undo.ts'
export { MAX_PENDING_CONFIRMATIONS } from '../confirm/limits.ts'
export { environment } from '../env.ts'
export { newId } from '../ids.ts'
export { DEFAULTS } from '../options.ts'
export { isPlainObject } from '../schema/paths.ts'
export { isValidName, llmName } from '../tool/names.ts'
export { MAX_PENDING_PER_SCOPE } from '../tool/queue.ts'
export {
  readSensitivePaths,
  redactInput,
  type SensitivePathsSource,
  SensitivePatterns,
} from '../tool/redact.ts'
export { redactChanges } from '../tool/redact-changes.ts'
export { toJsonSafe, toJsonSafeResult } from '../tool/serialize.ts'
export {
  type AttachCardOptions,
  attachCard,
  type ConfirmationCardView,
  cardView,
  DEFAULT_GRANT_DAYS,
  DESTRUCTIVE_WARNING,
  type GrantChoice,
  grantChoices,
  REJECT_ATTRIBUTE,
  readableToolName,
  UNDOABLE_NOTE,
} from './card-view.ts'
export { attachConsumers } from './consumers.ts'
export { type ContextBinding, contextKey, createContextBinding } from './context-binding.ts'
export { GRANT_CALLER_NAMES, type GrantLabel, grantLabel } from './grant-label.ts'
export {
  DEFINITION_FIELDS,
  type FieldRule,
  liveDefinition,
  optionalKey,
  schemaKey,
} from './live-definition.ts'
export {
  createManifestView,
  type ManifestViewOptions,
  readManifest,
} from './manifest-view.ts'
export { claimToolName, type NameOwnerKind } from './name-owners.ts'
export {
  NAVIGATION_NOT_A_PATH,
  NAVIGATION_NOT_ALLOWED,
  type NavigationContractOptions,
  type NavigationInput,
  navigationDescription,
  navigationInputSchema,
  resolveNavigation,
} from './navigation.ts'
export { publishRoute, ROUTES_STATUS, type RouteEntry, type RoutesStatus } from './routes.ts'
export { createScopeBinding, type ScopeBinding, type ScopeIdentity } from './scope-binding.ts'
export { type BindingScope, createToolBinding, structuralKey, type ToolBinding } from './tool-binding.ts'
export {
  type ApproveArgs,
  type ConfirmRequestItem,
  createPendingView,
  createQueueView,
  type ExternalSource,
  type PendingConfirmationItem,
  type PendingView,
  type QueueView,
} from './views.ts'
