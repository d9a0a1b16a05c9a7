import { clock, timer } from '../clock.ts'
import type { Entry, EntryScope } from '../tool/entry.ts'
import type { Caller, ConfirmMode, PendingConfirmation } from '../types.ts'
import { MAX_PENDING_CONFIRMATIONS, NO_CONFIRMATIONS } from './limits.ts'

/** An open confirmation, inline or deferred, bound to the registration that created it. */
export interface PendingRecord {
  readonly confirmId: string
  readonly callId: string
  readonly mode: ConfirmMode
  readonly entry: Entry
  readonly caller: Caller
  /** The real (validated) input the approved run receives. */
  readonly input: unknown
  /** The call's conversation id, for a grant "for this conversation". */
  readonly conversation?: string | undefined
  /** What the user sees: redacted. */
  readonly card: PendingConfirmation
  /** `performance.now()` at creation (expiry also counts monotonic time, so a wall-clock change cannot extend it). */
  readonly monoStart: number
  /** JSON of `snapshot()` at request time (form tools). */
  readonly snapshot: string | undefined
  /** Ends the record as expired (cap eviction, timer, scope disposal). */
  expire(): void
}

/**
 * Open confirmations in creation order. Expiry is checked against both clocks at approval time
 * (`isExpired`), and one shared timer expires deferred records nobody answers.
 */
export class PendingStore {
  readonly #records = new Map<string, PendingRecord>()
  readonly #expiryMs: number
  #timer: ReturnType<typeof setTimeout> | undefined
  #deferred: readonly PendingConfirmation[] | undefined

  constructor(expiryMs: number) {
    this.#expiryMs = expiryMs
  }

  get size(): number {
    return this.#records.size
  }

  /** Expired: wall clock at or past `expiresAt`, or the monotonic time elapsed reached the expiry. */
  isExpired(rec: PendingRecord): boolean {
    return clock.now() >= rec.card.expiresAt || clock.mono() - rec.monoStart >= this.#expiryMs
  }

  add(rec: PendingRecord): void {
    while (this.#records.size >= MAX_PENDING_CONFIRMATIONS) {
      const oldest = this.#records.values().next().value as PendingRecord
      this.#records.delete(oldest.confirmId)
      this.#changed(oldest)
      oldest.expire()
    }
    this.#records.set(rec.confirmId, rec)
    this.#changed(rec)
    if (rec.mode === 'deferred' && this.#timer === undefined) this.#arm()
  }

  get(confirmId: string): PendingRecord | undefined {
    return typeof confirmId === 'string' ? this.#records.get(confirmId) : undefined
  }

  /** Removes a record (it is consumed or ended). Returns false when it was already gone. */
  remove(rec: PendingRecord): boolean {
    if (this.#records.get(rec.confirmId) !== rec) return false
    this.#records.delete(rec.confirmId)
    this.#changed(rec)
    return true
  }

  /** Expires the open deferred confirmation `confirmId` now. Returns false when there is none. */
  expire(confirmId: string): boolean {
    const rec = this.get(confirmId)
    if (rec?.mode !== 'deferred' || !this.remove(rec)) return false
    rec.expire()
    return true
  }

  /** Expires every record whose tool lives in one of `scopes`. */
  dropScopes(scopes: ReadonlySet<EntryScope>): void {
    for (const rec of [...this.#records.values()]) {
      if (scopes.has(rec.entry.scope) && this.remove(rec)) rec.expire()
    }
  }

  /**
   * Deferred confirmations, oldest first, as a frozen array that changes identity only on change
   * (`NO_CONFIRMATIONS` when there is none).
   */
  deferred(): readonly PendingConfirmation[] {
    if (this.#deferred === undefined) {
      const list: PendingConfirmation[] = []
      for (const rec of this.#records.values()) if (rec.mode === 'deferred') list.push(rec.card)
      this.#deferred = list.length === 0 ? NO_CONFIRMATIONS : Object.freeze(list)
    }
    return this.#deferred
  }

  #changed(rec: PendingRecord): void {
    if (rec.mode === 'deferred') this.#deferred = undefined
  }

  #arm(): void {
    let first: PendingRecord | undefined
    for (const rec of this.#records.values()) {
      if (rec.mode === 'deferred') {
        first = rec
        break
      }
    }
    if (!first) return
    const wait = Math.max(
      0,
      Math.min(first.card.expiresAt - clock.now(), first.monoStart + this.#expiryMs - clock.mono()),
    )
    this.#timer = timer(() => {
      this.#timer = undefined
      for (const rec of [...this.#records.values()]) {
        if (rec.mode === 'deferred' && this.isExpired(rec) && this.remove(rec)) rec.expire()
      }
      this.#arm()
    }, wait)
  }
}
