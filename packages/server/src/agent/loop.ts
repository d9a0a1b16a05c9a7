import type { ToolResult } from '@toolmark/core'
import { EXPIRED_RESULT, modelResult, wrapUntrusted } from '@toolmark/protocol'
import type { Coordinator } from '../coordinate/coordinator.ts'
import { localCoordinator } from '../coordinate/local.ts'
import type { BoundPage, Relay, RelayEvents } from '../relay/relay.ts'
import { boundContent, boundText } from '../shared/bounds.ts'
import { type ChatMessage, MAX_MESSAGE_LENGTH, type ToolProgress } from '../shared/contract.ts'
import { MAX_QUEUED_TURNS_PER_USER } from '../shared/limits.ts'
import { maskText, secretForms } from '../shared/redact.ts'
import type { ConfirmBinding, Conversation, Store } from '../store/store.ts'
import { confirmedPart, toChat } from './chat-view.ts'
import type { ConversationEvents } from './events.ts'
import { History } from './history.ts'
import { forgetPart, type RealText, SecretLedger } from './ledger.ts'
import { toolLine } from './lines.ts'
import { type StepParts, step } from './step.ts'
import { TurnQueue } from './turn-queue.ts'
import type { AgentMessage, LlmTool, Provider, ToolCall } from './types.ts'

export { toChat } from './chat-view.ts'
export { FOLLOW_UP_PROMPT, SYSTEM_PROMPT } from './step.ts'

/** Longest user message accepted, in UTF-16 code units (the chat contract's limit). */
export const MAX_USER_TEXT = MAX_MESSAGE_LENGTH

const MAX_STEPS = 8

/**
 * What the agent records for a confirmation of a page that is gone, or past its lifetime: `refused
 * confirmation_expired` with the protocol's exact message (the same for every server).
 */
export { EXPIRED_RESULT }

export interface AgentOptions {
  store: Store
  relay: Relay
  provider: Provider
  events: ConversationEvents
  /**
   * How a conversation's turns run one at a time across every instance (shared mode), and how
   * {@link Agent.busyAnywhere} sees turns running elsewhere. Default none to reach (one process).
   */
  coordinator?: Coordinator
  /** Error sink (provider failures). Default `console.error`. */
  log?: (line: string) => void
  /**
   * Most turns of one user's messages queued or running on this instance at once; one more message is refused
   * ({@link Agent.post} throws `LimitExceeded`, `too_many_turns`). Default {@link MAX_QUEUED_TURNS_PER_USER}.
   */
  maxQueuedTurnsPerUser?: number
  /**
   * Publish the reply as it streams (`text-delta` events), masked. Default true; false publishes whole
   * messages only.
   */
  streamReplies?: boolean
  /**
   * How long a user's message waits for the conversation's page when a page connection is open but has not sent
   * its first manifest yet (the page is loading), so the model sees the page's tools. Default
   * {@link PAGE_WAIT_MS}; 0 never waits. With no page connection at all nothing waits.
   */
  pageWaitMs?: number
}

/** How long a user's message waits, by default, for a page that is connecting (see `AgentOptions.pageWaitMs`). */
export const PAGE_WAIT_MS = 2000

/** How often the wait for a connecting page looks again. */
const PAGE_POLL_MS = 50

/** Options of a turn started from outside the page (a front end that brings tools of its own). */
export interface TurnOptions {
  /**
   * Tools the front end runs itself (AG-UI client tools), offered to the model beside the page's. A call to one
   * is stored and ends the turn: the front end runs it and sends its result back ({@link Agent.answerClientTools}).
   * A tool named like one of the agent's own (`page_call`, `page_describe`) is left out.
   */
  clientTools?: readonly LlmTool[]
}

/** The result of a client tool call, as the front end sends it back. */
export interface ClientToolResult {
  toolCallId: string
  /** The result as the front end wrote it (usually JSON); bounded and masked before it is stored. */
  content: string
}

/** The agent's own tool names: a client tool may not take one. */
const OWN_TOOLS: ReadonlySet<string> = new Set(['page_call', 'page_describe'])

/**
 * The agent: one queue per conversation running turns in order (`turn-queue.ts`), each turn a few model steps
 * (`step.ts`). Turns offer the model exactly two tools (`page_call` with the bound page's rendered manifest, and
 * `page_describe`); a `confirmed` appends its wrapped outcome as a tool result and runs one follow-up turn
 * without page tools. Everything persisted is masked (`history.ts`, `ledger.ts`, and `redact.ts`).
 */
export class Agent {
  readonly #o: AgentOptions
  readonly #queue: TurnQueue
  readonly #history: History
  readonly #parts: StepParts
  readonly #coordinator: Coordinator

  constructor(options: AgentOptions) {
    this.#o = options
    const log = options.log ?? ((line: string) => console.error(line))
    this.#coordinator = options.coordinator ?? localCoordinator()
    this.#queue = new TurnQueue({
      events: options.events,
      coordinator: this.#coordinator,
      maxQueuedTurnsPerUser: options.maxQueuedTurnsPerUser ?? MAX_QUEUED_TURNS_PER_USER,
      log,
    })
    const closed = () => this.#queue.closed
    this.#history = new History(options.store, options.events, closed)
    this.#parts = {
      ...options,
      ledger: new SecretLedger(),
      history: this.#history,
      log,
      streamReplies: options.streamReplies !== false,
      stops: this.#queue.stops,
      closed,
    }
    this.#listen(options)
  }

  /** Follows the relay's events about pending decisions and progress. */
  #listen({ relay, events }: AgentOptions): void {
    relay.on('confirmed', ({ binding, result, secrets }) => this.#onConfirmed(binding, result, secrets))
    relay.on('expired', ({ conversationId, bindings, reason }) =>
      this.#onExpired(conversationId, bindings, reason ?? 'gone'),
    )
    relay.on('withdrawn', (event) => this.#onWithdrawn(event))
    relay.on('progress', ({ conversationId, toolCallId, fraction, message }) => {
      const progress: ToolProgress = {}
      if (fraction !== undefined) progress.fraction = fraction
      if (message !== undefined) progress.message = message
      events.publish(conversationId, { type: 'tool-progress', callId: toolCallId, progress })
    })
  }

  /**
   * Stores the user's message (masked) and queues a turn that sees the text as typed. Throws `LimitExceeded`
   * (`too_many_turns`), storing nothing, when the user already has `maxQueuedTurnsPerUser` turns queued or running.
   */
  async post(conversation: Conversation, text: string, options: TurnOptions = {}): Promise<ChatMessage> {
    const done = this.#queue.take(conversation)
    const clientTools = clientToolsOf(options)
    try {
      const masked = maskText(text)
      const stored = await this.#history.add(conversation.id, 'user', masked, { role: 'user', text: masked })
      this.#queue.enqueue(conversation.id, () =>
        this.#turn(conversation, { id: stored.id, text }, false, clientTools).finally(done),
      )
      if (this.#queue.closed) done() // nothing was queued
      return toChat(stored)
    } catch (error) {
      done()
      throw error
    }
  }

  /**
   * The ids of the client tool calls of the conversation that have no result yet: calls the model made to a
   * front end's own tools (see {@link TurnOptions.clientTools}), oldest first.
   */
  async openClientCalls(conversationId: string): Promise<ToolCall[]> {
    const stored = await this.#o.store.listMessages(conversationId)
    const answered = new Set(stored.flatMap((m) => (m.agent?.role === 'tool' ? [m.agent.toolCallId] : [])))
    return stored.flatMap((m) =>
      m.agent?.role === 'assistant'
        ? m.agent.toolCalls.filter((c) => !OWN_TOOLS.has(c.name) && !answered.has(c.id))
        : [],
    )
  }

  /**
   * Stores the front end's results of client tool calls (bounded and masked; hidden from the chat, whose front
   * end shows them itself) and queues the turn that goes on from them. Each `toolCallId` must be an open client
   * call of the conversation ({@link openClientCalls}); else nothing is stored and this returns false. Throws
   * `LimitExceeded` as {@link post} does.
   */
  async answerClientTools(
    conversation: Conversation,
    results: readonly ClientToolResult[],
    options: TurnOptions = {},
  ): Promise<boolean> {
    const open = new Map((await this.openClientCalls(conversation.id)).map((c) => [c.id, c]))
    if (results.length === 0 || results.some((r) => !open.has(r.toolCallId))) return false
    if (new Set(results.map((r) => r.toolCallId)).size !== results.length) return false
    const done = this.#queue.take(conversation)
    const clientTools = clientToolsOf(options)
    try {
      for (const r of results) {
        const name = open.get(r.toolCallId)!.name
        const content = maskText(boundContent(r.content))
        const message: AgentMessage = { role: 'tool', toolCallId: r.toolCallId, name, content }
        await this.#history.add(conversation.id, 'tool', `client ${name} → answered`, message, {
          tool: name,
          visible: false,
        })
      }
      this.#queue.enqueue(conversation.id, () =>
        this.#turn(conversation, undefined, false, clientTools).finally(done),
      )
      if (this.#queue.closed) done()
      return true
    } catch (error) {
      done()
      throw error
    }
  }

  /** True while a turn is queued or running for the conversation. */
  busy(conversationId: string): boolean {
    return this.#queue.busy(conversationId)
  }

  /**
   * True while a turn is queued or running on this instance, or (shared mode) running on another one: what
   * a chat stream opened now reports first.
   */
  async busyAnywhere(conversationId: string): Promise<boolean> {
    return this.busy(conversationId) || this.#coordinator.turnRunning(conversationId)
  }

  /** Resolves once the conversation has no queued or running turn. */
  async idle(conversationId: string): Promise<void> {
    await this.#queue.idle(conversationId)
  }

  /** Stops starting model requests, aborts those in flight, and resolves once every running turn has ended. */
  async close(): Promise<void> {
    await this.#queue.close()
  }

  /**
   * A message sent while the page is still loading (its connection open, its first manifest not there yet) waits
   * for that manifest, up to `pageWaitMs`: otherwise the model would answer without the page's tools. Resolves
   * the page when it found one, for the turn's first step.
   */
  async #awaitPage(conversationId: string): Promise<BoundPage | undefined> {
    const until = performance.now() + (this.#o.pageWaitMs ?? PAGE_WAIT_MS)
    const relay = this.#o.relay
    while (!this.#queue.closed && performance.now() < until) {
      const page = await relay.page(conversationId)
      if (page) return page
      if (!(await relay.connecting(conversationId))) return undefined
      await new Promise((resolve) => setTimeout(resolve, PAGE_POLL_MS))
    }
    return undefined
  }

  /** One turn: up to {@link MAX_STEPS} model steps, each reading the page once (see `step.ts`). */
  async #turn(
    conversation: Conversation,
    real: RealText | undefined,
    followUp: boolean,
    clientTools: readonly LlmTool[] = [],
  ): Promise<void> {
    let page = real && !followUp ? await this.#awaitPage(conversation.id) : undefined
    const { history, ids } = await this.#history.read(conversation.id, real)
    const turn = {
      conversation,
      real,
      followUp,
      clientTools,
      clientNames: new Set(clientTools.map((t) => t.name)),
      history,
      ids,
      secrets: new Set<string>(),
      forgotten: 0,
    }
    for (let n = 0; n < MAX_STEPS; n++) {
      const more = await step(this.#parts, turn, page)
      if (!more) return
      page = undefined
    }
    const text = 'I stopped here: that took too many steps for one turn.'
    await this.#history.add(conversation.id, 'assistant', text, undefined)
  }

  /** Appends a confirmation's outcome (the call's `secrets` cut out of what is stored) and runs the follow-up turn. */
  #onConfirmed(binding: ConfirmBinding, result: ToolResult, secrets: readonly string[]): void {
    this.#queue.enqueue(binding.conversationId, async () => {
      const conversation = await this.#o.store.getConversation(binding.conversationId)
      if (!conversation) return
      const entry = await this.#o.relay.toolEntry(binding.clientId, binding.tool)
      const message: AgentMessage = {
        role: 'tool',
        toolCallId: binding.toolCallId,
        name: 'page_call',
        content: boundContent(JSON.stringify(modelResult(result, entry, true))),
        confirmId: binding.confirmId,
      }
      const outcome = { result, timedOut: false }
      const line = boundText(toolLine('confirmed', binding.tool, outcome, binding.summary))
      const confirmed = await this.#confirmedPart(conversation.id, binding, outcome, line)
      const part = confirmed && forgetPart(confirmed, secretForms(secrets))
      if (part) this.#o.events.publish(conversation.id, { type: 'tool', part })
      const options = { tool: binding.tool, ...(part ? { part } : {}) }
      await this.#history.add(conversation.id, 'tool', line, message, options, new Set(secrets))
      await this.#turn(conversation, undefined, true)
    })
  }

  /** The waiting part of the binding's call moved to its outcome (see `chat-view.ts`); none once closing. */
  async #confirmedPart(
    conversationId: string,
    binding: ConfirmBinding,
    outcome: { result: ToolResult; timedOut: boolean },
    line: string,
  ) {
    if (this.#queue.closed) return undefined
    return confirmedPart(await this.#o.store.listMessages(conversationId), binding, outcome, line)
  }

  #onExpired(conversationId: string, bindings: ConfirmBinding[], reason: 'gone' | 'lifetime'): void {
    const why = reason === 'gone' ? 'the page that asked for it is gone' : 'its time to approve it ran out'
    this.#queue.enqueue(conversationId, async () => {
      for (const binding of bindings) {
        const result = EXPIRED_RESULT
        const message: AgentMessage = {
          role: 'tool',
          toolCallId: binding.toolCallId,
          name: 'page_call',
          content: JSON.stringify(wrapUntrusted(result)),
          confirmId: binding.confirmId,
        }
        const line = `confirmation expired: ${binding.summary} (${why})`
        const part = await this.#confirmedPart(conversationId, binding, { result, timedOut: false }, line)
        if (part) this.#o.events.publish(conversationId, { type: 'tool', part })
        await this.#history.add(conversationId, 'tool', line, message, {
          tool: binding.tool,
          ...(part ? { part } : {}),
        })
      }
    })
  }

  /** Records a pending decision that ended without the user's answer (asked again on a new page load). */
  #onWithdrawn(event: RelayEvents['withdrawn']): void {
    this.#queue.enqueue(event.conversationId, async () => {
      const message: AgentMessage = {
        role: 'tool',
        toolCallId: event.toolCallId,
        name: 'page_call',
        content: boundContent(JSON.stringify(wrapUntrusted(event.result))),
      }
      const line = boundText(`confirmation withdrawn: ${event.tool} → ${event.result.status} (${event.why})`)
      await this.#history.add(event.conversationId, 'tool', line, message, { tool: event.tool })
    })
  }
}

/** The client tools of a turn: well-formed, none named like the agent's own tools, each name once. */
function clientToolsOf(options: TurnOptions): LlmTool[] {
  const seen = new Set<string>()
  const out: LlmTool[] = []
  for (const t of options.clientTools ?? []) {
    if (OWN_TOOLS.has(t.name) || seen.has(t.name)) continue
    seen.add(t.name)
    out.push(t)
  }
  return out
}
