/**
 * What `lazy.ts` loads with `import()`: everything a confirmation needs once a call asks for one
 * (the card, inline and deferred confirmations with the runs they lead to, the approver's edit, the
 * pending store, `ctx.confirm`), the wait for an asynchronous validator and the run of an undo restorer. Only that
 * dynamic import (and the testing entry) reaches this module, so bundlers leave it out of the
 * initial bundle.
 */
export { approvalProblem } from '../confirm/approval.ts'
export { PendingStore } from '../confirm/pending.ts'
export { awaitValidation } from './async-validation.ts'
export { CallConfirmations } from './confirmations.ts'
export { ctxConfirm } from './ctx-confirm.ts'
export { runUndo } from './undo-run.ts'
