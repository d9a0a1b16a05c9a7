/**
 * What `lazy.ts` loads with `import()`: everything a confirmation needs once a call asks for one
 * (the card, inline and deferred confirmations, the approver's edit, the pending store). Only that
 * dynamic import (and the testing entry) reaches this module, so bundlers leave it out of the
 * initial bundle.
 */
export { approvalProblem, isApprovalProblem } from './approval.ts'
export { DeferredConfirmations } from './deferred.ts'
export { confirmCall, confirmInRun } from './inline.ts'
export { PendingStore } from './pending.ts'
