import type { PendingConfirmation } from '../types.ts'

/** At most this many confirmations are open per registry; creating another expires the oldest. */
export const MAX_PENDING_CONFIRMATIONS = 100

/** No deferred confirmation: what `pendingConfirmations()` answers while none is open (always this array). */
export const NO_CONFIRMATIONS: readonly PendingConfirmation[] = /* @__PURE__ */ Object.freeze([])
