import { createHash, randomBytes, randomUUID } from 'node:crypto'
import {
  type CallToolResult,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server'
import type { PairingConfirmedMessage, PairingConfirmMessage } from '../protocol/messages.ts'
import { confirmedFrom, confirmForm } from './elicit.ts'
import type { Asker } from './tabs.ts'

/** The key of the confirmation in `inputRequests` and `inputResponses`. */
export const CONFIRM_INPUT = 'confirm'

/** How long the outcome of a call stays for the client's retry once nobody waits for it. */
const KEEP_MS = 60_000

/**
 * What a `requestState` carries: the round it answers, the call it belongs to (tool and a digest of
 * its arguments), and the page's confirmation (id and expiry, epoch ms). Signed, never secret: the
 * client can read it.
 */
export interface ConfirmState {
  flow: string
  round: string
  tool: string
  args: string
  confirmId: string
  expiresAt: number
}

/**
 * The 2026-07-28 confirmation rounds of one relay: a call that needs the client's confirmation
 * answers `input_required` with a `requestState` sealed by the SDK codec (HMAC with a random key of
 * this relay, bound to the connection and the method); the client's retry carries the answer. Each
 * round is taken once: a replayed, tampered, expired or foreign `requestState` is refused before
 * anything reaches the page.
 */
export class InputRounds {
  readonly #key = randomBytes(32)
  readonly #flows = new Map<string, Flow>()
  /** Rounds presented to a client and not answered yet → their flow. */
  readonly #open = new Map<string, string>()

  constructor(private readonly ttlSeconds: number) {}

  /** The codec and `requestState.verify` hook of one connection (`connection` is its random id). */
  forConnection(connection: string): {
    codec: RequestStateCodec<ConfirmState>
    verify: (state: string, ctx: ServerContext) => Promise<ConfirmState>
  } {
    const codec = createRequestStateCodec<ConfirmState>({
      key: this.#key,
      ttlSeconds: this.ttlSeconds,
      bind: (ctx) => `${connection}\0${ctx.mcpReq.method}`,
    })
    const verify = async (state: string, ctx: ServerContext): Promise<ConfirmState> => {
      const payload = await codec.verify(state, ctx)
      // Single use: a round answers once; a replay (or a round whose call ended) is refused.
      if (this.#open.get(payload.round) !== payload.flow) throw new Error('used')
      this.#open.delete(payload.round)
      return payload
    }
    return { codec, verify }
  }

  /** A new flow for one call: its asker goes to the page call, its outcome to `finish`. */
  start(where: { tab: string; origin: string }, tool: string, args: unknown): Flow {
    const flow = new Flow(randomUUID(), where, tool, digest(args), (f) => this.#drop(f), this.#open)
    this.#flows.set(flow.id, flow)
    return flow
  }

  /**
   * The retried call: the flow its (verified) state names, after checking it is the same call.
   * Throws an Invalid Params error for a state of another call.
   */
  resume(state: ConfirmState, tool: string, args: unknown): Flow {
    const flow = this.#flows.get(state.flow)
    if (!flow || state.tool !== tool || state.args !== digest(args))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'The requestState belongs to another call.')
    return flow
  }

  #drop(flow: Flow): void {
    this.#flows.delete(flow.id)
    for (const [round, id] of this.#open) if (id === flow.id) this.#open.delete(round)
  }
}

/** One call's confirmation rounds: the page's questions in, the client's answers out, then its result. */
export class Flow {
  readonly controller = new AbortController()
  #asking:
    | { msg: PairingConfirmMessage; resolve: (a: PairingConfirmedMessage) => void; shown: boolean }
    | undefined
  #result: CallToolResult | undefined
  #wake: (() => void) | undefined
  #keep: NodeJS.Timeout | undefined

  constructor(
    readonly id: string,
    private readonly where: { tab: string; origin: string },
    private readonly tool: string,
    private readonly args: string,
    private readonly drop: (flow: Flow) => void,
    private readonly open: Map<string, string>,
  ) {}

  /** The page asks to confirm: the client sees it in the next `input_required`. */
  readonly ask: Asker = (msg) =>
    new Promise((resolve) => {
      this.#asking = { msg, resolve, shown: false }
      this.#wake?.()
    })

  /** The call ended: its result answers the client's current or next request. */
  finish(result: CallToolResult): void {
    this.#result = result
    const asking = this.#asking
    this.#asking = undefined
    asking?.resolve({
      type: 'confirmed',
      confirmId: asking.msg.confirmId,
      approved: false,
      reason: 'cancelled',
    })
    this.#wake?.()
    // Nobody waiting: the outcome stays a while for a late retry, then the flow ends.
    if (this.#wake === undefined) this.#keep = setTimeout(() => this.drop(this), KEEP_MS).unref()
  }

  /**
   * The client's answer for `state`'s round goes to the page: accept with its edits, decline, or
   * anything else as cancelled; past the confirmation's expiry, `expired`.
   */
  answer(state: ConfirmState, responses: Record<string, unknown> | undefined): void {
    const asking = this.#asking
    if (!asking || asking.msg.confirmId !== state.confirmId) return
    this.#asking = undefined
    const view = inputResponse(responses, CONFIRM_INPUT)
    const base = { type: 'confirmed' as const, confirmId: asking.msg.confirmId }
    if (Date.now() > state.expiresAt) asking.resolve({ ...base, approved: false, reason: 'expired' })
    else if (view.kind !== 'elicit') asking.resolve({ ...base, approved: false, reason: 'cancelled' })
    else asking.resolve(confirmedFrom(asking.msg, view))
  }

  /**
   * Waits for the page: the call's result (the flow ends), or its next question as `input_required`
   * with a fresh single-use round. The request's abort cancels the call while it waits.
   */
  async respond(
    ctx: ServerContext,
    codec: RequestStateCodec<ConfirmState>,
  ): Promise<CallToolResult | InputRequiredResult> {
    clearTimeout(this.#keep)
    const signal = ctx.mcpReq.signal
    const onAbort = (): void => this.controller.abort()
    if (signal.aborted) onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      await new Promise<void>((resolve) => {
        this.#wake = resolve
        if (this.#result !== undefined || (this.#asking && !this.#asking.shown)) resolve()
      })
    } finally {
      this.#wake = undefined
      signal.removeEventListener('abort', onAbort)
    }
    if (this.#result !== undefined || !this.#asking) {
      this.drop(this)
      return this.#result ?? { content: [{ type: 'text', text: 'The call ended.' }], isError: true }
    }
    const { msg } = this.#asking
    this.#asking.shown = true
    const round = randomUUID()
    this.open.set(round, this.id)
    const state: ConfirmState = {
      flow: this.id,
      round,
      tool: this.tool,
      args: this.args,
      confirmId: msg.confirmId,
      expiresAt: msg.expiresAt,
    }
    return inputRequired({
      inputRequests: { [CONFIRM_INPUT]: inputRequired.elicit(confirmForm(this.where, msg)) },
      requestState: await codec.mint(state, ctx),
    })
  }
}

/** A digest of a call's arguments: a retry must carry the same ones. */
function digest(args: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(args ?? {}))
    .digest('base64url')
}
