'use client'
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
export { ConfirmationCard, type ConfirmationCardProps } from './ConfirmationCard.tsx'
export { NO_TOOLMARK, ScopeContext, useCurrentScope, useToolmark } from './context.ts'
export { GrantsList, type GrantsListProps } from './GrantsList.tsx'
export { ToolmarkProvider, type ToolmarkProviderProps } from './ToolmarkProvider.tsx'
export { ToolScope, type ToolScopeProps } from './ToolScope.tsx'
export {
  type ConfirmationCardOptions,
  type ConfirmationCardState,
  useConfirmationCard,
} from './useConfirmationCard.ts'
export { type ConfirmQueueView, type ConfirmRequestItem, useConfirmQueue } from './useConfirmQueue.ts'
export { type GrantsView, useGrants } from './useGrants.ts'
export { type UseManifestOptions, useManifest } from './useManifest.ts'
export {
  type PendingConfirmationItem,
  type PendingConfirmations,
  usePendingConfirmations,
} from './usePendingConfirmations.ts'
export { type UseScopeOptions, useScope } from './useScope.ts'
export { type UseToolOptions, useTool } from './useTool.ts'
export { type ToolAnchor, useToolAnchor } from './useToolAnchor.ts'
export { useToolmarkContext } from './useToolmarkContext.ts'
