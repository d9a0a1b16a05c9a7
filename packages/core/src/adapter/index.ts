// "@toolmark/core/adapter": the framework-agnostic pieces every adapter (React, Vue, Svelte, …)
// binds to its own lifecycle, written once here so the adapters stay thin and identical.

export {
  type AttachCardOptions,
  attachCard,
  type ConfirmationCardView,
  cardView,
  DESTRUCTIVE_WARNING,
  REJECT_ATTRIBUTE,
  readableToolName,
  UNDOABLE_NOTE,
} from './card-view.ts'
export { attachConsumers } from './consumers.ts'
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
  type ConfirmRequestItem,
  createPendingView,
  createQueueView,
  type ExternalSource,
  type PendingConfirmationItem,
  type PendingView,
  type QueueView,
} from './views.ts'
