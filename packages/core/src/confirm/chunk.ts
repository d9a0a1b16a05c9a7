/**
 * What `lazy.ts` loads with `import()`: everything a confirmation needs once a call asks for one
 * (the card, inline and deferred confirmations with the runs they lead to, the approver's edit, the
 * pending store). Only that
 * dynamic import (and the testing entry) reaches this module, so bundlers leave it out of the
 * initial bundle.
 */
export { approvalProblem } from './approval.ts'
export { CallConfirmations } from './calls.ts'
export { confirmInRun } from './inline.ts'
export { PendingStore } from './pending.ts'
