export type {
  AnySchema,
  ConfirmationCardData,
  ConfirmQueue,
  ConfirmRequest,
  ContextDefinition,
  ContextHandle,
  Grant,
  GrantStore,
  Manifest,
  PendingConfirmation,
  Remember,
  Scope,
  ToolDefinition,
  ToolManifest,
  Toolmark,
  ToolmarkConsumer,
  ToolResult,
} from '@toolmark/core'
export {
  type ConfirmationCardView,
  cardView,
  DESTRUCTIVE_WARNING,
  UNDOABLE_NOTE,
} from '@toolmark/core/adapter'
export { default as ConfirmationCard } from './ConfirmationCard.svelte'
export {
  type CurrentScope,
  NO_TOOLMARK,
  type ScopeView,
  setScopeContext,
  setToolmarkContext,
  useCurrentScope,
  useToolmark,
} from './context.js'
export { default as GrantsList } from './GrantsList.svelte'
export { externalStore, type ReactiveStore } from './store.js'
export { default as ToolmarkProvider } from './ToolmarkProvider.svelte'
export { type ConfirmationCardOptions, useConfirmationCard } from './useConfirmationCard.svelte.js'
export { type ConfirmQueueStore, type ConfirmRequestItem, useConfirmQueue } from './useConfirmQueue.js'
export { type GrantsStore, useGrants } from './useGrants.js'
export { type UseManifestOptions, useManifest } from './useManifest.js'
export {
  type PendingConfirmationItem,
  type PendingConfirmationsStore,
  usePendingConfirmations,
} from './usePendingConfirmations.js'
export { type UseScopeOptions, useScope } from './useScope.svelte.js'
export { type UseToolOptions, useTool } from './useTool.svelte.js'
export { type ToolAnchor, useToolAnchor } from './useToolAnchor.js'
export { useToolmarkContext } from './useToolmarkContext.svelte.js'
