/**
 * What `lazy.ts` loads with `import()`: everything a confirmation needs once a call asks for one
 * (the card, inline and deferred confirmations, the approver's edit). Only that dynamic import
 * reaches this module, so every bundler leaves it out of the initial bundle.
 */
export { prepareConfirmation, showInput } from './card.ts'
export { DeferredConfirmations } from './deferred.ts'
export { askInline } from './inline.ts'
export { PendingStore } from './pending.ts'
