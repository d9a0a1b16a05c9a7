export type {
  AnySchema,
  ConfirmationCardData,
  ConfirmQueue,
  ConfirmRequest,
  Manifest,
  PendingConfirmation,
  Scope,
  ToolDefinition,
  ToolManifest,
  Toolmark,
  ToolmarkConsumer,
  ToolResult,
} from '@toolmark/core'
export { default as ConfirmationCard } from './ConfirmationCard.svelte'
export { type ConfirmationCardView, cardView, DESTRUCTIVE_WARNING } from './cardView.ts'
export { NO_TOOLMARK, type ScopeView, setToolmarkContext, useToolmark } from './context.ts'
export { externalStore, type ReactiveStore } from './store.ts'
export { default as ToolmarkProvider } from './ToolmarkProvider.svelte'
export { useConfirmationCard } from './useConfirmationCard.svelte.ts'
export { type ConfirmQueueStore, type ConfirmRequestItem, useConfirmQueue } from './useConfirmQueue.ts'
export { type UseManifestOptions, useManifest } from './useManifest.ts'
export {
  type PendingConfirmationItem,
  type PendingConfirmationsStore,
  usePendingConfirmations,
} from './usePendingConfirmations.ts'
export { type UseScopeOptions, useScope } from './useScope.svelte.ts'
export { type UseToolOptions, useTool } from './useTool.svelte.ts'
export { type ToolAnchor, useToolAnchor } from './useToolAnchor.ts'
