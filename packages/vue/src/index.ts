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
export { type AnswerableConfirmation, ConfirmationCard } from './ConfirmationCard.ts'
export { GrantsList } from './GrantsList.ts'
export {
  NO_INJECTION_CONTEXT,
  NO_TOOLMARK,
  provideToolmark,
  SCOPE_KEY,
  TOOLMARK_KEY,
  useCurrentScope,
  useToolmark,
} from './injection.ts'
export { ToolmarkPlugin, type ToolmarkPluginOptions } from './plugin.ts'
export { type ConfirmationCardOptions, useConfirmationCard } from './useConfirmationCard.ts'
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
