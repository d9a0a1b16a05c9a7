import { fromJsonSchema, REDACTED } from '@toolmark/core'
import { REFUSED_MESSAGES } from '@toolmark/protocol'
import { type Agent, type ClientToolResult, MAX_USER_TEXT } from '../agent/loop.ts'
import type { LlmTool } from '../agent/types.ts'
import type { Relay } from '../relay/relay.ts'
import type { ErrorBody } from '../shared/contract.ts'
import { LimitExceeded } from '../shared/limits.ts'
import { escapeForLog } from '../shared/log.ts'
import type { ConfirmBinding, Conversation, Store, StoredMessage } from '../store/store.ts'
import { readJson, TOO_DEEP } from './body.ts'
import { failureForLog, internalError, UNAUTHENTICATED } from './errors.ts'
import { isStoreUnavailable, storeUnavailable } from './health.ts'
import { checkOrigin, hostOf, ORIGIN_REFUSED } from './origin.ts'

/** The parts of a Toolmark server the AG-UI endpoint uses (`createToolmarkServer(...)` has them all). */
export interface AgUiServer {
  readonly store: Store
  readonly relay: Pick<Relay, 'page' | 'request'>
  readonly agent: Pick<Agent, 'post' | 'idle' | 'openClientCalls' | 'answerClientTools'>
  readonly allowedOrigins: readonly string[]
  userOf(request: Request): Promise<string | undefined>
}

/** Options of {@link agUiHandler}. */
export interface AgUiOptions {
  /** Time source for confirmation deadlines: the server's clock (tests). Default `Date.now`. */
  now?: () => number
  /** Where failures are logged. Default `console.error`. */
  log?: (line: string) => void
  /**
   * How long a resume waits for the page to report the answer the front end gave it (`tm.confirmPending`) before
   * it ends with `confirmation_unanswered`. Default 5000 ms.
   */
  pageAnswerWaitMs?: number
}

/** Most entries one resume may carry: as many confirmations as a page may hold pending. */
const MAX_RESUME_ENTRIES = 100

/** How often a resume looks for the page's own answer. */
const PAGE_ANSWER_POLL_MS = 25

/** One AG-UI 1.0 event as this endpoint writes it (see `@ag-ui/core`'s `BaseEvent`). */
export type AgUiEvent = { type: string } & Record<string, unknown>

/** An AG-UI interrupt for one deferred confirmation (see `@ag-ui/core`'s `Interrupt`). */
export interface AgUiInterrupt {
  /** The confirmation's single-use confirmId. */
  id: string
  reason: 'tool_call'
  /** The confirmation's summary ("Create challenge "Robotics""). */
  message: string
  /** The tool call (`TOOL_CALL_START`) that asked for it; its `TOOL_CALL_RESULT` follows the answer. */
  toolCallId: string
  /** What a resume entry's `payload` may hold: {@link RESUME_SCHEMA}. */
  responseSchema: Record<string, unknown>
  /** ISO 8601: the confirmation's own deadline; after it, a resolving resume is refused. */
  expiresAt?: string
  metadata: { tool: string }
}

/** Largest AG-UI request body accepted, in bytes (the front end sends its whole message history). */
export const MAX_AG_UI_BODY_BYTES = 1_048_576

/**
 * The JSON Schema of a resume entry's payload: `approved` (required); `editedArgs`, the tool's input as the
 * user edited it (only with `approved: true`; checked against the tool's schema here, validated again by the
 * page); `reason` (only with `approved: false`). The payload repeats the answer the front end gave in the page
 * (`tm.confirmPending`): the page's outcome is what counts.
 */
export const RESUME_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: {
    approved: {
      type: 'boolean',
      description: 'true runs the tool in the page as the user; false rejects it',
    },
    editedArgs: { type: 'object', description: "The tool's input as edited by the user (approve only)" },
    reason: { type: 'string', description: 'Why it was rejected (reject only)' },
  },
  required: ['approved'],
  additionalProperties: false,
})

/**
 * What this endpoint supports, as AG-UI `AgentCapabilities` (answered as JSON to a `GET` of the endpoint):
 * tool-call approvals through interrupts, with edited input; the agent's tools are the page's, and the tools a
 * front end passes in `RunAgentInput.tools` (client tools, which it runs itself).
 */
export const AG_UI_CAPABILITIES = Object.freeze({
  identity: {
    name: 'toolmark',
    description: "An in-app agent that acts in the user's page through its tools",
  },
  transport: { streaming: true },
  tools: { supported: true, clientProvided: true },
  humanInTheLoop: { supported: true, approvals: true, interrupts: true, approveWithEdits: true },
})

/**
 * The run-level error codes of `RUN_ERROR` (besides the seed's `confirmation_expired` and `invalid`):
 * `interrupt_pending` (input while interrupts are open), `unaddressed_interrupt` (a resume that leaves one
 * open), `unknown_interrupt`, `invalid_resume` (a payload that does not fit {@link RESUME_SCHEMA}),
 * `confirmation_unanswered` (the page reported no answer within `pageAnswerWaitMs`: the front end must apply it
 * in the page with `tm.confirmPending` before resuming),
 * `no_user_message`, `invalid_tool_result` (tool results that answer no open client tool call),
 * `message_too_long`, `too_many_turns`, `internal`.
 */
export type AgUiErrorCode =
  | 'interrupt_pending'
  | 'unaddressed_interrupt'
  | 'unknown_interrupt'
  | 'invalid_resume'
  | 'confirmation_unanswered'
  | 'confirmation_expired'
  | 'invalid'
  | 'no_user_message'
  | 'invalid_tool_result'
  | 'message_too_long'
  | 'too_many_turns'
  | 'internal'

class RunError extends Error {
  constructor(
    readonly code: AgUiErrorCode,
    message: string,
  ) {
    super(message)
  }
}

interface ResumeEntry {
  interruptId: string
  status: 'resolved' | 'cancelled'
  payload?: unknown
}

interface RunInput {
  threadId: string
  runId: string
  messages: unknown[]
  resume?: ResumeEntry[]
  tools: LlmTool[]
}

/** Most client tools one run may bring. */
export const MAX_CLIENT_TOOLS = 64
/** A client tool's name: what model APIs accept as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** The run's client tools (`RunAgentInput.tools`: name, description, JSON Schema parameters), or why not. */
function clientToolsOf(tools: unknown): LlmTool[] | string {
  if (tools === undefined) return []
  if (!Array.isArray(tools)) return 'tools must be an array'
  if (tools.length > MAX_CLIENT_TOOLS) return `at most ${MAX_CLIENT_TOOLS} client tools per run`
  const out: LlmTool[] = []
  for (const t of tools) {
    if (!isObject(t) || typeof t.name !== 'string' || !TOOL_NAME.test(t.name))
      return 'each tool needs a name of letters, digits, _ or - (at most 64)'
    if (t.name === 'page_call' || t.name === 'page_describe')
      return `${t.name} is the agent's own tool: a client tool cannot take its name`
    if (typeof t.description !== 'string') return `tool ${t.name} needs a description`
    if (t.parameters !== undefined && !isObject(t.parameters))
      return `tool ${t.name}'s parameters must be a JSON Schema object`
    out.push({
      name: t.name,
      description: t.description,
      input_schema: isObject(t.parameters) ? t.parameters : { type: 'object', properties: {} },
    })
  }
  if (new Set(out.map((t) => t.name)).size !== out.length) return 'each client tool name must be unique'
  return out
}

/**
 * The results of client tool calls at the end of the front end's history: its `tool` messages after the last
 * assistant message (what a front end sends after running the calls of the previous run).
 */
function trailingToolResults(messages: unknown[]): ClientToolResult[] {
  const out: ClientToolResult[] = []
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (!isObject(m) || m.role !== 'tool') break
    if (typeof m.toolCallId !== 'string') continue
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? null)
    out.unshift({ toolCallId: m.toolCallId, content })
  }
  return out
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** The request body as an AG-UI `RunAgentInput`, or why it is not one. */
function parseInput(body: unknown): RunInput | string {
  if (!isObject(body)) return 'Expected a JSON RunAgentInput'
  const { threadId, runId, messages, resume } = body
  if (typeof threadId !== 'string' || threadId === '') return 'threadId must be the conversation id'
  if (typeof runId !== 'string' || runId === '') return 'runId must be a non-empty string'
  if (!Array.isArray(messages)) return 'messages must be an array'
  const tools = clientToolsOf(body.tools)
  if (typeof tools === 'string') return tools
  if (resume === undefined) return { threadId, runId, messages, tools }
  if (!Array.isArray(resume)) return 'resume must be an array'
  // A page holds at most 100 pending confirmations: no resume answers more, and none answers one twice.
  if (resume.length > MAX_RESUME_ENTRIES) return `resume may answer at most ${MAX_RESUME_ENTRIES} interrupts`
  const named = new Set<string>()
  for (const entry of resume) {
    if (!isObject(entry) || typeof entry.interruptId !== 'string')
      return 'each resume entry needs an interruptId'
    if (entry.status !== 'resolved' && entry.status !== 'cancelled')
      return "each resume entry's status must be resolved or cancelled"
    if (named.has(entry.interruptId)) return 'each interrupt may be answered once per resume'
    named.add(entry.interruptId)
  }
  return { threadId, runId, messages, resume: resume as ResumeEntry[], tools }
}

/** The text of the last user message of the front end's history (string content or text parts). */
function lastUserText(messages: unknown[]): string | undefined {
  const last = messages.findLast((m) => isObject(m) && m.role === 'user')
  if (!isObject(last)) return undefined
  const content = last.content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  return content
    .filter((p) => isObject(p) && p.type === 'text' && typeof p.text === 'string')
    .map((p) => (p as { text: string }).text)
    .join('\n')
}

/** The user's answer a resolved resume entry carries, or why it does not fit {@link RESUME_SCHEMA}. */
function answerOf(
  payload: unknown,
): { approved: true; input?: Record<string, unknown> } | { approved: false; reason?: string } | string {
  if (!isObject(payload) || typeof payload.approved !== 'boolean')
    return 'The resume payload must be { approved: boolean, editedArgs?, reason? }'
  for (const key of Object.keys(payload))
    if (key !== 'approved' && key !== 'editedArgs' && key !== 'reason')
      return `The resume payload has an unknown property: ${key}`
  if (payload.approved) {
    if (payload.reason !== undefined) return 'reason is only for a rejection'
    if (payload.editedArgs === undefined) return { approved: true }
    if (!isObject(payload.editedArgs)) return 'editedArgs must be an object'
    return { approved: true, input: payload.editedArgs }
  }
  if (payload.editedArgs !== undefined) return 'editedArgs is only for an approval'
  if (payload.reason !== undefined && typeof payload.reason !== 'string') return 'reason must be a string'
  return payload.reason === undefined ? { approved: false } : { approved: false, reason: payload.reason }
}

/** Issues of an edit as one sentence. */
const issuesText = (issues: ReadonlyArray<{ path: string; message: string }>): string =>
  `The edited input is invalid: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`

/** A Standard Schema issue path as the seed writes it (`card.number`, `items.0.name`). */
const pathOf = (path: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined): PropertyKey[] =>
  (path ?? []).map((p) => (typeof p === 'object' ? p.key : p))

/**
 * A page's input schema without its regular expressions, for the server's check of an edit: a `pattern` is left
 * to the page (a page's regular expression never runs on the server, where a slow one would stall every
 * conversation), and a schema with `patternProperties` or a reference (`$ref`: a schema that refers to itself
 * can make a check take exponential time in the input's depth) is not checked here at all (undefined).
 */
function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) {
    const items = schema.map(withoutPatterns)
    return items.includes(undefined) ? undefined : items
  }
  if (!isObject(schema)) return schema
  if (
    'patternProperties' in schema ||
    '$ref' in schema ||
    '$dynamicRef' in schema ||
    '$recursiveRef' in schema
  )
    return undefined
  const out: Array<[string, unknown]> = []
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'pattern' && typeof value === 'string') continue
    // Values, not schemas: kept as they are.
    if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') {
      out.push([key, value])
      continue
    }
    const copy = withoutPatterns(value)
    if (copy === undefined) return undefined
    out.push([key, copy])
  }
  // Each key its own property: a `__proto__` key stays data.
  return Object.fromEntries(out)
}

/** The value at `path` in `value`, or undefined. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value
  for (const key of path) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined
    at = (at as Record<PropertyKey, unknown>)[key]
  }
  return at
}

/** A tool result's JSON for `TOOL_CALL_RESULT`: the stored content, out of its untrusted-content envelope. */
function resultContent(content: string): string {
  try {
    const parsed: unknown = JSON.parse(content)
    return JSON.stringify(isObject(parsed) && parsed.untrustedContent === true ? parsed.result : parsed)
  } catch {
    return content
  }
}

/**
 * The AG-UI events of stored messages: assistant text as one text message, each tool call as start, args and
 * end (a `page_call` under the page tool's own name, its input as the arguments), each tool result as
 * `TOOL_CALL_RESULT`, except the `needs_confirmation` answer of a call that asked for a confirmation: that
 * call's result is the confirmation's outcome, sent after the interrupt is answered.
 */
function eventsOf(messages: readonly StoredMessage[], confirmCalls: ReadonlySet<string>): AgUiEvent[] {
  const events: AgUiEvent[] = []
  for (const m of messages) {
    if (m.role === 'user') continue
    const agent = m.agent
    if (m.role === 'assistant') {
      if (m.visible && m.text.trim() !== '') {
        events.push({ type: 'TEXT_MESSAGE_START', messageId: m.id, role: 'assistant' })
        events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: m.id, delta: m.text })
        events.push({ type: 'TEXT_MESSAGE_END', messageId: m.id })
      }
      if (agent?.role !== 'assistant') continue
      for (const call of agent.toolCalls) {
        const input = isObject(call.input) ? call.input : {}
        const pageCall = call.name === 'page_call' && typeof input.tool === 'string'
        const name = pageCall ? (input.tool as string) : call.name
        const args = pageCall ? (isObject(input.input) ? input.input : {}) : input
        events.push({
          type: 'TOOL_CALL_START',
          toolCallId: call.id,
          toolCallName: name,
          parentMessageId: m.id,
        })
        events.push({ type: 'TOOL_CALL_ARGS', toolCallId: call.id, delta: JSON.stringify(args) })
        events.push({ type: 'TOOL_CALL_END', toolCallId: call.id })
      }
      continue
    }
    if (agent?.role !== 'tool') continue
    if (agent.confirmId === undefined && confirmCalls.has(agent.toolCallId)) continue
    events.push({
      type: 'TOOL_CALL_RESULT',
      messageId: m.id,
      toolCallId: agent.toolCallId,
      content: resultContent(agent.content),
      role: 'tool',
    })
  }
  return events
}

/**
 * An AG-UI 1.0 endpoint for a Toolmark server: `POST` a `RunAgentInput` (what `HttpAgent` from `@ag-ui/client`
 * sends) and the run streams back as server-sent AG-UI events; `GET` answers {@link AG_UI_CAPABILITIES}.
 *
 * - `threadId` is a conversation id of the signed-in user (`POST /api/conversations` creates one); another
 *   user's or an unknown one is `404`. The same `Host`/`Origin` rules and user (`authenticate` or the demo
 *   session) as the chat API apply.
 * - The last user message of `messages` is posted to the conversation; the turn's text, the page calls the
 *   agent made (under the page tool's name) and their results stream back.
 * - A deferred confirmation ends the run with `outcome: { type: 'interrupt' }`, one interrupt per open
 *   confirmation ({@link AgUiInterrupt}). The next run's `resume` must address every open interrupt:
 *   `resolved` with `{ approved, editedArgs?, reason? }`, or `cancelled` (a rejection). The front end, which
 *   runs in the page beside its registry, first applies the answer there with `tm.confirmPending(interrupt.id,
 *   { approved, input?, reason? })`, where the seed's rules hold (single use, expiry, the revision check, edits
 *   validated again), then resumes with the same answer. The bridge protocol is unchanged: the page reports the
 *   outcome with its usual `confirmed`, and the resume waits up to `pageAnswerWaitMs` for it to be stored. Then
 *   the outcome streams as the call's `TOOL_CALL_RESULT`, followed by the agent's acknowledgement. The page's
 *   outcome is what counts, not the resume's payload, which never runs anything itself.
 * - Past an interrupt's `expiresAt`, a resolving resume is refused (`RUN_ERROR` `confirmation_expired`); an edit
 *   that fails the tool's input schema (asked of the page with a `describe`) is refused (`RUN_ERROR` `invalid`)
 *   before anything else, and the interrupt stays open; a resume the page did not answer within
 *   `pageAnswerWaitMs` ends in `RUN_ERROR` `confirmation_unanswered` and runs nothing; an identical resume sent
 *   again replays the stored outcome and runs nothing; input while interrupts are open is refused.
 */
export function agUiHandler(
  server: AgUiServer,
  options: AgUiOptions = {},
): (request: Request) => Promise<Response> {
  const runs = new AgUiRuns(server, options)
  return (request) => runs.handle(request)
}

/** A JSON error answer. */
const fail = (status: number, code: string, message: string) =>
  Response.json({ error: { code, message } } satisfies ErrorBody, { status })

/** The interrupt that asks for one open confirmation. */
const interruptOf = (b: ConfirmBinding): AgUiInterrupt => ({
  id: b.confirmId,
  reason: 'tool_call',
  message: b.summary,
  toolCallId: b.toolCallId,
  responseSchema: { ...RESUME_SCHEMA },
  ...(b.expiresAt === undefined ? {} : { expiresAt: new Date(b.expiresAt).toISOString() }),
  metadata: { tool: b.tool },
})

/** What a resume does for one interrupt: the confirmation it answers and the answer. */
type ResumeStep = { binding: ConfirmBinding; answer: Exclude<ReturnType<typeof answerOf>, string> }

/** The runs of {@link agUiHandler}: an ordinary turn, or a resume that answers the open interrupts. */
class AgUiRuns {
  readonly now: () => number
  readonly log: (line: string) => void
  readonly pageAnswerWaitMs: number

  constructor(
    readonly server: AgUiServer,
    options: AgUiOptions,
  ) {
    this.now = options.now ?? Date.now
    this.log = options.log ?? ((line: string) => console.error(line))
    this.pageAnswerWaitMs = options.pageAnswerWaitMs ?? 5000
  }
  /** The conversation's confirmations still open: pending, not past their deadline. */
  async openConfirms(conversationId: string): Promise<ConfirmBinding[]> {
    return (await this.server.store.listConfirms(conversationId)).filter(
      (b) => b.state === 'pending' && (b.expiresAt === undefined || b.expiresAt > this.now()),
    )
  }

  /** The events of what the conversation stored after its first `from` messages. */
  async eventsSince(conversationId: string, from: number): Promise<AgUiEvent[]> {
    const stored = await this.server.store.listMessages(conversationId)
    const confirms = await this.server.store.listConfirms(conversationId)
    return eventsOf(stored.slice(from), new Set(confirms.map((b) => b.toolCallId)))
  }

  /** An ordinary run: the user's message becomes a turn of the conversation. */
  async *turn(conversation: Conversation, input: RunInput): AsyncGenerator<AgUiEvent> {
    if ((await this.openConfirms(conversation.id)).length > 0)
      throw new RunError(
        'interrupt_pending',
        'A confirmation is waiting: answer every open interrupt (resume) before sending a message',
      )
    const results = trailingToolResults(input.messages)
    if (results.length > 0) {
      // The front end ran the client tool calls of the last run: the turn goes on from their results.
      const open = await this.server.agent.openClientCalls(conversation.id)
      const mine = results.filter((r) => open.some((c) => c.id === r.toolCallId))
      const from = (await this.server.store.listMessages(conversation.id)).length
      let accepted = false
      try {
        if (mine.length > 0)
          accepted = await this.server.agent.answerClientTools(conversation, mine, {
            clientTools: input.tools,
          })
      } catch (error) {
        if (error instanceof LimitExceeded) throw new RunError('too_many_turns', error.message)
        throw error
      }
      if (!accepted)
        throw new RunError('invalid_tool_result', 'The tool results answer no open client tool call')
      await this.server.agent.idle(conversation.id)
      // The results the front end sent are not echoed back.
      const sent = new Set(mine.map((r) => r.toolCallId))
      for (const event of await this.eventsSince(conversation.id, from))
        if (event.type !== 'TOOL_CALL_RESULT' || !sent.has(event.toolCallId as string)) yield event
      return
    }
    const text = lastUserText(input.messages)?.trim()
    if (!text) throw new RunError('no_user_message', 'The run has no user message to answer')
    if (text.length > MAX_USER_TEXT)
      throw new RunError(
        'message_too_long',
        `The message is ${text.length} characters long; the limit is ${MAX_USER_TEXT}`,
      )
    const from = (await this.server.store.listMessages(conversation.id)).length
    try {
      await this.server.agent.post(conversation, text, { clientTools: input.tools })
    } catch (error) {
      if (error instanceof LimitExceeded) throw new RunError('too_many_turns', error.message)
      throw error
    }
    await this.server.agent.idle(conversation.id)
    yield* await this.eventsSince(conversation.id, from)
  }

  /** A run that answers the open interrupts. */
  async *resume(conversation: Conversation, entries: ResumeEntry[]): AsyncGenerator<AgUiEvent> {
    const plan = await this.planResume(conversation, entries)
    const from = (await this.server.store.listMessages(conversation.id)).length
    const replayed: StoredMessage[] = []
    for (const { binding } of plan) {
      // Answered already (in the page just before this resume, or this same resume sent again): its stored outcome.
      if (binding.state !== 'pending') {
        replayed.push(...(await this.outcomeOf(conversation.id, binding.confirmId)))
        continue
      }
      if (binding.expiresAt !== undefined && binding.expiresAt <= this.now()) continue // cancelled, and expired anyway
      const page = await this.server.relay.page(conversation.id)
      if (page?.clientId !== binding.clientId)
        throw new RunError('confirmation_expired', REFUSED_MESSAGES.confirmation_expired)
      // The front end applied the answer in the page (`tm.confirmPending`); the page's `confirmed` may reach the
      // server just after the resume does.
      const state = await this.answerInPage(binding.confirmId)
      if (state === 'expired')
        throw new RunError('confirmation_expired', REFUSED_MESSAGES.confirmation_expired)
      if (state === 'pending')
        throw new RunError(
          'confirmation_unanswered',
          `The page did not answer this confirmation within ${this.pageAnswerWaitMs} ms: apply the answer in the page with tm.confirmPending(confirmId, outcome), then resume`,
        )
      await this.server.agent.idle(conversation.id)
      replayed.push(...(await this.outcomeOf(conversation.id, binding.confirmId)))
    }
    // The page's `confirmed` started the acknowledging turn: its outcome and reply are stored once it ends.
    await this.server.agent.idle(conversation.id)
    const confirms = new Set((await this.server.store.listConfirms(conversation.id)).map((b) => b.toolCallId))
    yield* eventsOf(replayed, confirms)
    // What was stored since the resume began, less what was replayed (a page's answer may land in between).
    const replayedIds = new Set(replayed.map((m) => m.id))
    const stored = (await this.server.store.listMessages(conversation.id)).slice(from)
    yield* eventsOf(
      stored.filter((m) => !replayedIds.has(m.id)),
      confirms,
    )
  }

  /**
   * What a resume does, checked before anything runs (a resume is refused whole or replayed whole): every open
   * interrupt answered, each answer well formed and in time, each edit valid for the tool's input schema.
   */
  async planResume(conversation: Conversation, entries: ResumeEntry[]): Promise<ResumeStep[]> {
    const open = await this.openConfirms(conversation.id)
    const all = new Map((await this.server.store.listConfirms(conversation.id)).map((b) => [b.confirmId, b]))
    const answered = new Set(entries.map((e) => e.interruptId))
    const missing = open.filter((b) => !answered.has(b.confirmId))
    if (missing.length > 0)
      throw new RunError(
        'unaddressed_interrupt',
        `The resume must answer every open interrupt; missing: ${missing.map((b) => b.confirmId).join(', ')}`,
      )
    const plan: ResumeStep[] = []
    for (const entry of entries) {
      const binding = all.get(entry.interruptId)
      if (!binding)
        throw new RunError('unknown_interrupt', `No open interrupt has the id ${entry.interruptId}`)
      if (entry.status === 'cancelled') {
        plan.push({ binding, answer: { approved: false, reason: 'cancelled' } })
        continue
      }
      const answer = answerOf(entry.payload)
      if (typeof answer === 'string') throw new RunError('invalid_resume', answer)
      const expired =
        binding.state === 'expired' ||
        (binding.state === 'pending' && binding.expiresAt !== undefined && binding.expiresAt <= this.now())
      if (expired) throw new RunError('confirmation_expired', REFUSED_MESSAGES.confirmation_expired)
      plan.push({ binding, answer })
    }
    for (const { binding, answer } of plan)
      if (binding.state === 'pending' && answer.approved && answer.input)
        await this.checkEdit(conversation, binding, answer.input)
    return plan
  }

  /**
   * Refuses an edit that fails the tool's input schema (`RUN_ERROR` `invalid`), as the page would: the schema is
   * the page's own, from a `describe` of the tool. A `'[redacted]'` placeholder is not checked (the page restores
   * the real value and validates that), nor are regular expressions ({@link withoutPatterns}); without the schema
   * (no page, or one the compiler does not take), the page's own validation is the only one.
   */
  async checkEdit(
    conversation: Conversation,
    binding: ConfirmBinding,
    input: Record<string, unknown>,
  ): Promise<void> {
    const scope = {
      userId: conversation.userId,
      conversationId: conversation.id,
      toolCallId: binding.toolCallId,
    }
    const described = (await this.server.relay.request(scope, { kind: 'describe', tool: binding.tool }))
      .result
    if (described.status !== 'ok' || !isObject(described.data)) return
    const inputSchema = withoutPatterns(described.data.inputSchema)
    if (!isObject(inputSchema)) return
    let schema: ReturnType<typeof fromJsonSchema>
    try {
      schema = fromJsonSchema(inputSchema)
    } catch {
      return
    }
    const checked = await schema['~standard'].validate(input)
    const issues = (checked.issues ?? []).flatMap((i) => {
      const path = pathOf(i.path)
      return valueAt(input, path) === REDACTED ? [] : [{ path: path.join('.'), message: i.message }]
    })
    if (issues.length > 0) throw new RunError('invalid', issuesText(issues))
  }

  /** The confirmation's state once the page answered it, waiting up to `this.pageAnswerWaitMs` (`pending`: no answer). */
  async answerInPage(confirmId: string): Promise<ConfirmBinding['state']> {
    const until = Date.now() + this.pageAnswerWaitMs
    for (;;) {
      const binding = await this.server.store.getConfirm(confirmId)
      if (!binding) return 'expired'
      if (binding.state !== 'pending' || Date.now() >= until) return binding.state
      await new Promise((resolve) => setTimeout(resolve, PAGE_ANSWER_POLL_MS))
    }
  }

  /** The stored outcome of a confirmation (its tool result) and the reply that followed it. */
  async outcomeOf(conversationId: string, confirmId: string): Promise<StoredMessage[]> {
    const stored = await this.server.store.listMessages(conversationId)
    const at = stored.findIndex((m) => m.agent?.role === 'tool' && m.agent.confirmId === confirmId)
    if (at < 0) return []
    const reply = stored.slice(at + 1).find((m) => m.role === 'assistant' && m.visible)
    return reply ? [stored[at]!, reply] : [stored[at]!]
  }

  /** The whole run as SSE: started, the events, then finished (an interrupt when confirmations are open) or error. */
  stream(conversation: Conversation, input: RunInput): Response {
    const encoder = new TextEncoder()
    const body = new ReadableStream<Uint8Array>({
      start: async (controller) => {
        const send = (event: AgUiEvent) =>
          controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`))
        const ids = { threadId: input.threadId, runId: input.runId }
        send({ type: 'RUN_STARTED', ...ids })
        try {
          const events = input.resume
            ? this.resume(conversation, input.resume)
            : this.turn(conversation, input)
          for await (const event of events) send(event)
          const open = await this.openConfirms(conversation.id)
          send(
            open.length > 0
              ? {
                  type: 'RUN_FINISHED',
                  ...ids,
                  outcome: { type: 'interrupt', interrupts: open.map(interruptOf) },
                }
              : { type: 'RUN_FINISHED', ...ids, outcome: { type: 'success' } },
          )
        } catch (error) {
          if (error instanceof RunError) send({ type: 'RUN_ERROR', message: error.message, code: error.code })
          else {
            this.log(`[ag-ui] run failed: ${escapeForLog(failureForLog(error))}`)
            send({ type: 'RUN_ERROR', message: 'Internal server error', code: 'internal' })
          }
        }
        controller.close()
      },
    })
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      },
    })
  }

  /** Answers one request: the Host/Origin check, capabilities, or a run as SSE. */
  async handle(request: Request): Promise<Response> {
    const problem = checkOrigin(
      hostOf(request),
      request.headers.get('origin') ?? undefined,
      this.server.allowedOrigins,
    )
    if (problem) return fail(403, ORIGIN_REFUSED[problem].code, ORIGIN_REFUSED[problem].message)
    if (request.method === 'GET') return Response.json(AG_UI_CAPABILITIES)
    if (request.method !== 'POST')
      return fail(405, 'method_not_allowed', 'Use POST (a run) or GET (capabilities)')
    try {
      const userId = await this.server.userOf(request)
      if (!userId) return fail(401, UNAUTHENTICATED.code, UNAUTHENTICATED.message)
      if (!request.headers.get('content-type')?.startsWith('application/json'))
        return fail(415, 'unsupported_media_type', 'Send the RunAgentInput as application/json')
      const read = await readJson(request, MAX_AG_UI_BODY_BYTES)
      if (!read.ok && read.reason === 'too_large')
        return fail(413, 'body_too_large', `Request body over ${MAX_AG_UI_BODY_BYTES} bytes`)
      if (!read.ok && read.reason === 'too_deep') return fail(400, TOO_DEEP.code, TOO_DEEP.message)
      const input = parseInput(read.ok ? read.value : undefined)
      if (typeof input === 'string') return fail(400, 'invalid_body', input)
      const conversation = await this.server.store.getConversation(input.threadId)
      if (conversation?.userId !== userId) return fail(404, 'not_found', 'No such conversation')
      return this.stream(conversation, input)
    } catch (error) {
      this.log(`[ag-ui] request failed: ${failureForLog(error)}`)
      if (isStoreUnavailable(error)) return storeUnavailable()
      return Response.json(internalError(error), { status: 500 })
    }
  }
}
