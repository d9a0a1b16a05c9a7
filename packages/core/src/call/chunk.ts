/**
 * What `lazy.ts` loads with `import()`: the call pipeline (lookup, policy, validation, confirmation,
 * the queue and the run, with everything only some calls need: the card, inline and deferred
 * confirmations, the approver's edit, the pending store, `ctx.confirm`, the wait for an asynchronous
 * validator and the run of an undo restorer). Only that dynamic import (and the testing entry)
 * reaches this module, so bundlers leave it out of the initial bundle.
 */
export { PendingStore } from '../confirm/pending.ts'
export { Pipeline } from './call.ts'
export { Deadlines } from './deadlines.ts'
