// "@toolmark/core/adapter": the framework-agnostic pieces every adapter (React, Vue, Svelte, …)
// binds to its own lifecycle, written once here so the adapters stay thin and identical.

export {
  type AttachCardOptions,
  attachCard,
  type ConfirmationCardView,
  cardView,
  DESTRUCTIVE_WARNING,
  REJECT_ATTRIBUTE,
  UNDOABLE_NOTE,
} from './card-view.ts'
export {
  liveDefinition,
  optionalKey,
  registerOwned,
  type StructuralParts,
  sameHints,
  schemaKey,
} from './live-definition.ts'
