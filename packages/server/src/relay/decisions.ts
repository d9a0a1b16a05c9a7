import type { ToolManifestSummary, ToolResult } from '@toolmark/core'
import { EXPIRED_RESULT, REFUSED_MESSAGES } from '@toolmark/protocol'
import type { Clock } from '../shared/clock.ts'
import { escapeForLog } from '../shared/log.ts'
import { maskValue } from '../shared/redact.ts'
import type { ConfirmBinding, PendingDecision, Store } from '../store/store.ts'
import type { PageRequest, RelayEvents, RequestOutcome } from './types.ts'

/** What {@link Decisions} needs from the relay. */
export interface DecisionHost {
  readonly store: Store
  readonly clock: Clock
  /** How long a pending decision is asked again after its first card (ms). */
  readonly ttlMs: number
  log(line: string): void
  emit<K extends keyof RelayEvents>(event: K, payload: RelayEvents[K]): void
  /** Sends a call to the conversation's bound page load, as the agent's own calls are sent. */
  request(
    scope: { userId: string; conversationId: string; toolCallId: string },
    request: PageRequest,
  ): Promise<RequestOutcome>
  /** True when the outcome is the page's own answer (not a deadline, no page, a shutdown or a withdrawal). */
  answered(outcome: RequestOutcome): boolean
  /** Sends a `cancel` for `callId` to the page load it was sent to. */
  cancel(conversationId: string, clientId: string, callId: string): void
}

/**
 * The identity of a manifest entry as the user saw it: name, title, description, hints and mode, keys sorted.
 * A card is asked again only while the tool's entry is the same.
 */
export function entryOf(entry: ToolManifestSummary): string {
  const sorted = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
        )
      : value
  const { name, title, description, hints, mode } = entry
  return JSON.stringify(sorted({ name, title, description, hints, mode }))
}

/**
 * The user's pending decisions, kept in the store apart from the page loads that show them: a call that answered
 * `needs_confirmation` is asked again on each new page load of its conversation (a reload, another tab, after a
 * restart), which shows its card with a new confirmId. The first `confirmed` of any of its cards decides it; the
 * other cards are withdrawn (their confirmIds expire and their page gets a `cancel` for the call that asked).
 */
export class Decisions {
  readonly #host: DecisionHost
  /** `clientId \0 toolCallId` of the calls being asked again from here right now. */
  readonly #asking = new Set<string>()

  constructor(host: DecisionHost) {
    this.#host = host
  }

  /** True when the store keeps decisions. */
  get #enabled(): boolean {
    const s = this.#host.store
    return s.openDecision !== undefined && s.closeDecision !== undefined && s.pendingDecisions !== undefined
  }

  /**
   * Stores the decision of a call that answered `needs_confirmation`. Its input is stored only when masking
   * leaves it whole (no secret value, nothing that looks like one): otherwise it is never asked again.
   */
  async open(
    scope: { userId: string; conversationId: string; toolCallId: string },
    request: { tool: string; input: Record<string, unknown>; secrets?: readonly string[] },
    entry: ToolManifestSummary | undefined,
  ): Promise<void> {
    if (!this.#enabled || !entry) return
    const secrets = request.secrets ?? []
    const masked = maskValue(request.input, { secrets })
    const whole = JSON.stringify(masked) === JSON.stringify(request.input)
    const now = this.#host.clock.now()
    const decision: PendingDecision = {
      ...scope,
      tool: request.tool,
      ...(whole ? { input: request.input } : {}),
      entry: entryOf(entry),
      createdAt: now,
      expiresAt: now + this.#host.ttlMs,
      state: 'pending',
    }
    await this.#host.store.openDecision!(decision)
  }

  /**
   * A `confirmed` for `binding` was accepted: closes its decision (`dropped`: the answer came past its lifetime).
   * False when another card of the same decision was answered first (this answer must not count). An accepted
   * answer withdraws the other cards still pending.
   */
  async decide(binding: ConfirmBinding, state: 'decided' | 'dropped' = 'decided'): Promise<boolean> {
    if (!this.#enabled) return true
    const { store, clock } = this.#host
    if (!(await store.closeDecision!(binding, state, clock.now()))) return false
    if (state === 'dropped') return true
    for (const other of await store.listConfirms(binding.conversationId)) {
      if (other.toolCallId !== binding.toolCallId || other.confirmId === binding.confirmId) continue
      if (other.state === 'pending' && (await store.settleConfirm(other.confirmId, 'expired')))
        this.#host.cancel(other.conversationId, other.clientId, other.callId)
    }
    return true
  }

  /**
   * Of the confirmations of a page load that is gone, those whose decision will be asked again on the next page
   * load are left out: the agent is told of the others only.
   */
  async gone(conversationId: string, bindings: ConfirmBinding[]): Promise<ConfirmBinding[]> {
    if (!this.#enabled || bindings.length === 0) return bindings
    const now = this.#host.clock.now()
    const asked = new Set(
      (await this.#host.store.pendingDecisions!(conversationId))
        .filter((d) => d.input !== undefined && d.expiresAt > now)
        .map((d) => d.toolCallId),
    )
    const told: ConfirmBinding[] = []
    for (const binding of bindings) {
      if (asked.has(binding.toolCallId)) continue
      // Never asked again: the decision is over with its page.
      await this.#host.store.closeDecision!(binding, 'dropped', now)
      told.push(binding)
    }
    return told
  }

  /**
   * The conversation's page load `clientId` sent a manifest: every pending decision it has not been asked yet is
   * asked now, when its tool is listed. A tool not listed (yet: a page registers tools as its components mount)
   * waits for the next manifest; a changed tool drops the decision (`stale`), past its lifetime it is dropped
   * too, and the agent is told either way.
   */
  async reask(
    conversationId: string,
    clientId: string,
    page: { rev: number; tools: readonly ToolManifestSummary[] },
  ): Promise<void> {
    if (!this.#enabled) return
    const { store, clock } = this.#host
    const pending = await store.pendingDecisions!(conversationId)
    if (pending.length === 0) return
    const confirms = await store.listConfirms(conversationId)
    const now = clock.now()
    for (const decision of pending) {
      if (decision.expiresAt <= now) {
        await this.#drop(decision, EXPIRED_RESULT, 'its time to approve it ran out')
        continue
      }
      if (decision.input === undefined) continue
      const key = `${clientId}\u0000${decision.toolCallId}`
      const asked = confirms.some((c) => c.toolCallId === decision.toolCallId && c.clientId === clientId)
      if (asked || this.#asking.has(key)) continue
      const entry = page.tools.find((t) => t.name === decision.tool)
      if (!entry) continue
      if (entryOf(entry) !== decision.entry) {
        const stale: ToolResult = {
          status: 'refused',
          code: 'stale',
          message: REFUSED_MESSAGES.staleTool,
          rev: page.rev,
        }
        await this.#drop(decision, stale, 'the tool changed since it was asked')
        continue
      }
      this.#asking.add(key)
      void this.#ask(decision, decision.input)
        .catch((error: unknown) => this.#host.log(`[relay] could not ask again: ${escapeForLog(error)}`))
        .finally(() => this.#asking.delete(key))
    }
  }

  async #ask(decision: PendingDecision, input: Record<string, unknown>): Promise<void> {
    const scope = {
      userId: decision.userId,
      conversationId: decision.conversationId,
      toolCallId: decision.toolCallId,
    }
    const outcome = await this.#host.request(scope, { kind: 'call', tool: decision.tool, input })
    const result = outcome.result
    if (result.status === 'needs_confirmation') {
      // The card is back. If another page load's card decided it while this one was asked, the new card is
      // withdrawn at once (decide() withdrew the cards that existed then; this one did not yet).
      const { store } = this.#host
      const open = (await store.pendingDecisions!(decision.conversationId)).some(
        (d) => d.toolCallId === decision.toolCallId,
      )
      if (!open && (await store.settleConfirm(result.confirmId, 'expired')) && outcome.clientId !== undefined)
        this.#host.cancel(decision.conversationId, outcome.clientId, outcome.callId)
      return
    }
    // The page did not answer: the decision stays pending for the next page load.
    if (!this.#host.answered(outcome)) return
    const why =
      result.status === 'refused' && (result.code === 'unknown_tool' || result.code === 'stale')
        ? 'the tool is gone or changed on the reloaded page'
        : 'the reloaded page answered without asking'
    await this.#drop(decision, result, why, result.status === 'ok' ? 'decided' : 'dropped')
  }

  /** Closes the decision without the user's approval and tells the agent, unless it was closed already. */
  async #drop(
    decision: PendingDecision,
    result: ToolResult,
    why: string,
    state: 'decided' | 'dropped' = 'dropped',
  ): Promise<void> {
    if (!(await this.#host.store.closeDecision!(decision, state, this.#host.clock.now()))) return
    const { conversationId, toolCallId, tool } = decision
    this.#host.emit('withdrawn', { conversationId, toolCallId, tool, result, why })
  }
}
