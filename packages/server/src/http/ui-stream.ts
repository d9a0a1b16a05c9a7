import type { ToolResult } from '@toolmark/core'
import { EXPIRED_RESULT } from '@toolmark/protocol'
import { MAX_USER_TEXT } from '../agent/loop.ts'
import type { ToolmarkServer } from '../server.ts'
import { LimitExceeded } from '../shared/limits.ts'
import type { ConfirmBinding, Conversation, Store, StoredMessage } from '../store/store.ts'
import { readJson, TOO_DEEP } from './body.ts'
import { UNAUTHENTICATED } from './errors.ts'
import { checkOrigin, hostOf, ORIGIN_REFUSED } from './origin.ts'

/** The headers of an AI SDK UI message stream (`x-vercel-ai-ui-message-stream: v1` marks the protocol). */
export const UI_MESSAGE_STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
} as const

/** One chunk of the UI message stream, as this route writes it (a subset of the AI SDK's `UIMessageChunk`). */
export type UiChunk = { type: string } & Record<string, unknown>

/** Options of {@link uiMessageStreamHandler}. */
export interface UiMessageStreamOptions {
  /** Largest request body read, in bytes (`useChat` sends the whole history). Default 1 MiB. */
  maxBodyBytes?: number
  /**
   * How long a re-POST after an approval waits for the page's outcome of that confirmation before the stream
   * ends without it. Default 30 000 ms.
   */
  approvalWaitMs?: number
  /** Milliseconds between keep-alive comments. Default 15 000. */
  keepAliveMs?: number
}

/** The server parts the route reads. */
export type UiStreamServer = Pick<
  ToolmarkServer,
  'fetch' | 'userOf' | 'allowedOrigins' | 'store' | 'agent' | 'events'
>

const json = (status: number, code: string, message: string) =>
  Response.json({ error: { code, message } }, { status })

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** A stored tool result, unwrapped from the untrusted-content envelope; undefined when it is not JSON. */
function resultOf(content: string): ToolResult | undefined {
  try {
    const value: unknown = JSON.parse(content)
    const result = isObject(value) && value.untrustedContent === true ? value.result : value
    return isObject(result) && typeof result.status === 'string'
      ? (result as unknown as ToolResult)
      : undefined
  } catch {
    return undefined
  }
}

/**
 * A tool part's input as the chat shows it: the masked rendering parsed back into its value, or the rendering
 * itself when it was cut short (a long input ends in `…` and is no longer JSON).
 */
function inputOf(rendered: unknown): unknown {
  if (typeof rendered !== 'string') return rendered ?? {}
  try {
    return JSON.parse(rendered) as unknown
  } catch {
    return rendered
  }
}

/** The text a failed result shows in the chat (`tool-output-error`): the seed's code and message. */
export function errorTextOf(result: ToolResult): string {
  switch (result.status) {
    case 'refused':
      return `${result.code}: ${result.message}`
    case 'invalid':
      return `invalid: ${result.issues.map((i) => `${i.path || 'input'} ${i.message}`).join('; ')}`
    case 'cancelled':
      return `cancelled by ${result.by}`
    case 'error':
      return `error: ${result.message}`
    default:
      return result.status
  }
}

/** The ids of the approvals answered in the last assistant message of a `useChat` history. */
function answeredApprovals(message: Record<string, unknown>): string[] {
  const parts = Array.isArray(message.parts) ? message.parts : []
  const ids = new Set<string>()
  for (const part of parts) {
    if (!isObject(part) || part.state !== 'approval-responded' || !isObject(part.approval)) continue
    if (typeof part.approval.id === 'string') ids.add(part.approval.id)
  }
  return [...ids]
}

/** Most approvals one message may answer: as many confirmations as a page may hold pending. */
const MAX_ANSWERED_APPROVALS = 100

/** The text of a `useChat` user message: its text parts, joined. */
function textOf(message: Record<string, unknown>): string {
  const parts = Array.isArray(message.parts) ? message.parts : []
  return parts
    .filter(
      (p): p is { type: 'text'; text: string } =>
        isObject(p) && p.type === 'text' && typeof p.text === 'string',
    )
    .map((p) => p.text)
    .join('')
}

/**
 * Turns a conversation's stored messages into UI message stream chunks, each once. Text of assistant messages
 * becomes text parts; `page_call` calls become typed tool parts (`tool-<page tool name>`) with their input and
 * output; `needs_confirmation` becomes `tool-approval-request` whose `approvalId` is the confirmId; a
 * confirmation's outcome answers that part (`tool-output-available`, `-denied` for a rejection, `-error`).
 * Streamed `text-delta` and `tool` chat events, when the server sends them, are written as they come.
 */
class ChunkWriter {
  readonly #write: (chunk: UiChunk) => void
  readonly #done = new Set<string>()
  /** Tool call ids whose part this stream (or the history it continues) holds: only they get outputs. */
  readonly known = new Set<string>()
  readonly #inputSent = new Set<string>()
  readonly #approvalSent = new Set<string>()
  /** The text streamed so far of each assistant message that streamed. */
  readonly #streamedText = new Map<string, string>()

  constructor(write: (chunk: UiChunk) => void) {
    this.#write = write
  }

  /** A streamed text delta of an assistant message (ended by that message's own event). */
  delta(messageId: string, delta: string): void {
    if (this.#done.has(messageId)) return
    const sofar = this.#streamedText.get(messageId)
    if (sofar === undefined) this.#write({ type: 'text-start', id: messageId })
    this.#streamedText.set(messageId, (sofar ?? '') + delta)
    this.#write({ type: 'text-delta', id: messageId, delta })
  }

  /** A tool part's progress event: the input as it starts, the approval request while it waits. */
  tool(part: Record<string, unknown>): void {
    const callId = part.callId
    const tool = part.tool
    if (typeof callId !== 'string' || typeof tool !== 'string') return
    this.#input(callId, tool, inputOf(part.input), typeof part.title === 'string' ? part.title : undefined)
    if (part.state === 'waiting' && typeof part.confirmId === 'string')
      this.#approval(callId, part.confirmId, typeof part.summary === 'string' ? part.summary : undefined)
  }

  #input(callId: string, tool: string, input: unknown, title?: string): void {
    this.known.add(callId)
    if (this.#inputSent.has(callId)) return
    this.#inputSent.add(callId)
    this.#write({
      type: 'tool-input-available',
      toolCallId: callId,
      toolName: tool,
      input: input ?? {},
      ...(title ? { title } : {}),
    })
  }

  #approval(callId: string, confirmId: string, summary?: string): void {
    if (this.#approvalSent.has(callId)) return
    this.#approvalSent.add(callId)
    this.#write({
      type: 'tool-approval-request',
      approvalId: confirmId,
      toolCallId: callId,
      ...(summary ? { reason: summary } : {}),
    })
  }

  /** The result of a tool part (a call's own, or a confirmation's outcome). */
  #output(callId: string, result: ToolResult | undefined, confirmation: boolean): void {
    if (!this.known.has(callId)) return
    if (!result)
      this.#write({ type: 'tool-output-error', toolCallId: callId, errorText: 'error: unreadable result' })
    else if (result.status === 'ok')
      this.#write({ type: 'tool-output-available', toolCallId: callId, output: result.data ?? null })
    else if (confirmation && result.status === 'cancelled' && result.by === 'operator')
      this.#write({ type: 'tool-output-denied', toolCallId: callId })
    else this.#write({ type: 'tool-output-error', toolCallId: callId, errorText: errorTextOf(result) })
  }

  /** A stored message, with the conversation's messages to find a tool result's call in. */
  message(m: StoredMessage, all: readonly StoredMessage[]): void {
    if (this.#done.has(m.id)) return
    this.#done.add(m.id)
    if (m.role === 'assistant' && m.visible && m.text.trim() !== '') {
      const sofar = this.#streamedText.get(m.id)
      if (sofar === undefined) this.#write({ type: 'text-start', id: m.id })
      // The deltas stop where the stream held text back (it may be masked yet); the stored text is whole and
      // masked, so what it adds after the streamed text is the last delta.
      const rest = sofar === undefined ? m.text : m.text.startsWith(sofar) ? m.text.slice(sofar.length) : ''
      if (rest !== '') this.#write({ type: 'text-delta', id: m.id, delta: rest })
      this.#write({ type: 'text-end', id: m.id })
      return
    }
    const agent = m.agent
    if (m.role !== 'tool' || agent?.role !== 'tool' || agent.name !== 'page_call') return
    const result = resultOf(agent.content)
    if (agent.confirmId !== undefined) {
      this.#output(agent.toolCallId, result, true)
      return
    }
    const call = all
      .flatMap((s) => (s.agent?.role === 'assistant' ? s.agent.toolCalls : []))
      .find((c) => c.id === agent.toolCallId)
    const input = isObject(call?.input) ? call.input : {}
    const tool = typeof input.tool === 'string' ? input.tool : (m.tool ?? 'page_call')
    this.#input(agent.toolCallId, tool, isObject(input.input) ? input.input : {})
    if (result?.status === 'needs_confirmation')
      this.#approval(agent.toolCallId, result.confirmId, result.summary)
    else this.#output(agent.toolCallId, result, false)
  }
}

/**
 * A route handler that speaks the AI SDK 7 UI message stream to an unchanged `useChat`: `POST` with
 * `{ id, messages, trigger, messageId }`, where `id` is a Toolmark conversation id of the signed-in user (create
 * it with `POST /api/conversations`). The last message decides: a user message starts a turn with its text; an
 * assistant message whose tool parts hold answered approvals (the re-POST of `sendAutomaticallyWhen:
 * lastAssistantMessageIsCompleteWithApprovalResponses`) streams the outcome of those confirmations, as the page
 * reported it, and the follow-up turn after it. The approval itself is never read from the request: the page
 * applies it (`tm.confirmPending`, see `useChatApprovals` in `@toolmark/react/chat`), so single use, expiry and
 * the revision check stay the page's and the server's. Host, origin and user are checked as on the chat API.
 */
export function uiMessageStreamHandler(
  server: UiStreamServer,
  options: UiMessageStreamOptions = {},
): (request: Request) => Promise<Response> {
  const maxBody = options.maxBodyBytes ?? 1_048_576
  const timing = {
    approvalWaitMs: options.approvalWaitMs ?? 30_000,
    keepAliveMs: options.keepAliveMs ?? 15_000,
  }
  const { store } = server

  return async (request) => {
    const problem = checkOrigin(
      hostOf(request),
      request.headers.get('origin') ?? undefined,
      server.allowedOrigins,
    )
    if (problem) return json(403, ORIGIN_REFUSED[problem].code, ORIGIN_REFUSED[problem].message)
    if (request.method !== 'POST' && request.method !== 'GET')
      return json(405, 'method_not_allowed', 'POST the useChat request, or GET ?id= its messages')
    const userId = await server.userOf(request)
    if (!userId) return json(401, UNAUTHENTICATED.code, UNAUTHENTICATED.message)
    if (request.method === 'GET') {
      const id = new URL(request.url).searchParams.get('id') ?? ''
      const found = id === '' ? undefined : await store.getConversation(id)
      if (!found || found.userId !== userId) return json(404, 'not_found', 'No such conversation')
      return Response.json({ messages: await uiMessagesOf(store, found.id) })
    }
    const post = await readChatPost(request, store, userId, maxBody)
    if (post instanceof Response) return post
    return new UiRun(server, userId, post, timing).start(request)
  }
}

/** A `useChat` POST: the user's conversation, its last message, and the text it sends or the approvals it continues. */
interface ChatPost {
  conversation: Conversation
  last: Record<string, unknown>
  /** The user's message (a new turn), or undefined for a continuation. */
  text: string | undefined
  /** The confirmIds whose answered approvals a continuation carries. */
  awaited: string[]
}

/** The `useChat` POST of `userId`, or the 4xx answer that refuses it. */
async function readChatPost(
  request: Request,
  store: UiStreamServer['store'],
  userId: string,
  maxBody: number,
): Promise<ChatPost | Response> {
  const read = await readJson(request, maxBody)
  if (!read.ok && read.reason === 'too_large')
    return json(413, 'body_too_large', `Request body over ${maxBody} bytes`)
  if (!read.ok && read.reason === 'too_deep') return json(400, TOO_DEEP.code, TOO_DEEP.message)
  const body = read.ok && isObject(read.value) ? read.value : undefined
  const messages = body && Array.isArray(body.messages) ? body.messages : undefined
  const last = messages?.[messages.length - 1]
  if (!body || typeof body.id !== 'string' || !isObject(last))
    return json(400, 'invalid_body', 'Expected the useChat body { id, messages, trigger }')
  if (body.trigger !== undefined && body.trigger !== 'submit-message')
    return json(
      400,
      'unsupported_trigger',
      'Only submit-message is supported: the conversation lives on the server',
    )
  const conversation = await store.getConversation(body.id)
  if (!conversation || conversation.userId !== userId) return json(404, 'not_found', 'No such conversation')

  if (last.role === 'user') {
    const text = textOf(last).trim()
    if (text === '') return json(400, 'empty_message', 'The message is empty')
    if (text.length > MAX_USER_TEXT)
      return json(
        400,
        'message_too_long',
        `The message is ${text.length} characters long; the limit is ${MAX_USER_TEXT}`,
      )
    return { conversation, last, text, awaited: [] }
  }
  const awaited = answeredApprovals(last)
  if (awaited.length === 0)
    return json(400, 'nothing_to_continue', 'The last message holds no answered approval')
  if (awaited.length > MAX_ANSWERED_APPROVALS)
    return json(
      400,
      'too_many_approvals',
      `The last message answers ${awaited.length} approvals; the limit is ${MAX_ANSWERED_APPROVALS}`,
    )
  return { conversation, last, text: undefined, awaited }
}

/**
 * One streamed `useChat` run: the UI message chunks of a new turn (after the user's message), or of the outcomes
 * of the confirmations a continuation carries and the turn after them, until the conversation is idle.
 */
class UiRun {
  readonly #encoder = new TextEncoder()
  #controller!: ReadableStreamDefaultController<Uint8Array>
  #closed = false
  readonly #cleanups: (() => void)[] = []
  readonly #writer: ChunkWriter
  /** The tool calls whose outcomes the continuation waits for (by tool call: a decision asked again has a new confirmId). */
  readonly #waiting = new Set<string>()
  /** Everything runs in order on one chain: store reads, event handling and the end. */
  #chain = Promise.resolve()
  /** The id of the stored message after which this stream writes (a new turn: the user's message). */
  #after: string | undefined
  #started = false
  #posted: boolean

  constructor(
    readonly server: UiStreamServer,
    readonly userId: string,
    readonly post: ChatPost,
    readonly timing: { approvalWaitMs: number; keepAliveMs: number },
  ) {
    this.#writer = new ChunkWriter(this.#write)
    this.#posted = post.text === undefined
  }

  #close = () => {
    if (this.#closed) return
    this.#closed = true
    for (const cleanup of this.#cleanups) cleanup()
    try {
      this.#controller.enqueue(this.#encoder.encode('data: [DONE]\n\n'))
      this.#controller.close()
    } catch {}
  }

  #write = (chunk: UiChunk) => {
    if (!this.#closed) this.#controller.enqueue(this.#encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`))
  }

  #run = (task: () => void | Promise<void>) => {
    this.#chain = this.#chain.then(task).catch(() => this.#close())
  }

  /** Starts the run and answers with its stream (429 when the user's turns are over the cap). */
  async start(request: Request): Promise<Response> {
    const { conversation, last, text } = this.post
    const { awaited } = this.post
    // Bound without a pause after the store's answer: the writes it queues come after the stream's first chunks.
    this.#bindApprovals(await Promise.all(awaited.map((id) => this.server.store.getConfirm(id))))
    this.#started = last.role !== 'user' && this.#waiting.size === 0
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.#controller = c
      },
      cancel: () => {
        this.#closed = true
        for (const cleanup of this.#cleanups) cleanup()
      },
    })
    this.#write({ type: 'start' })
    this.#write({ type: 'start-step' })
    this.#cleanups.push(this.server.events.subscribe(conversation.id, (event) => this.#onEvent(event)))
    const keepAlive = setInterval(() => {
      if (!this.#closed) this.#controller.enqueue(this.#encoder.encode(': keep-alive\n\n'))
    }, this.timing.keepAliveMs)
    this.#cleanups.push(() => clearInterval(keepAlive))
    request.signal?.addEventListener('abort', () => this.#close())

    if (text !== undefined) {
      const refused = await this.#postText(text)
      if (refused) return refused
    } else {
      const timer = setTimeout(() => {
        this.#run(async () => {
          // The page never reported those outcomes in time: the stream ends; the chat API shows them later.
          this.#waiting.clear()
          this.#started = true
          await this.#finishIfIdle()
        })
      }, this.timing.approvalWaitMs)
      this.#cleanups.push(() => clearTimeout(timer))
    }
    this.#run(this.#sync)
    this.#run(this.#finishIfIdle)
    return new Response(stream, { headers: UI_MESSAGE_STREAM_HEADERS })
  }

  /** Posts the user's message: undefined once it is a turn, or the 429 answer when the user is over the cap. */
  async #postText(text: string): Promise<Response | undefined> {
    try {
      const user = await this.server.agent.post(this.post.conversation, text)
      this.#after = user.id
      this.#started = true
      this.#posted = true
      return undefined
    } catch (error) {
      for (const cleanup of this.#cleanups) cleanup()
      if (error instanceof LimitExceeded) {
        const headers: Record<string, string> =
          error.retryAfter === undefined ? {} : { 'retry-after': String(error.retryAfter) }
        return Response.json(
          { error: { code: error.code, message: error.message } },
          { status: 429, headers },
        )
      }
      throw error
    }
  }

  /** The confirmations this re-POST continues: their parts are in the client's message already. */
  #bindApprovals(bindings: (ConfirmBinding | undefined)[]): void {
    const { conversation, last, awaited } = this.post
    const toolCalls = toolCallsByApproval(last)
    for (const [i, id] of awaited.entries()) {
      const binding = bindings[i]
      if (binding && binding.conversationId === conversation.id && binding.userId === this.userId) {
        this.#writer.known.add(binding.toolCallId)
        this.#waiting.add(binding.toolCallId)
        continue
      }
      // An approval the server never bound to this conversation: the seed's answer for an unknown confirmId.
      const toolCallId = toolCalls.get(id)
      if (toolCallId) {
        this.#writer.known.add(toolCallId)
        queueMicrotask(() =>
          this.#write({
            type: 'tool-output-error',
            toolCallId,
            errorText: errorTextOf(EXPIRED_RESULT as ToolResult),
          }),
        )
      }
    }
  }

  #onEvent(event: unknown): void {
    const e = event as { type: string } & Record<string, unknown>
    if (e.type === 'text-delta' && typeof e.messageId === 'string' && typeof e.delta === 'string') {
      const { messageId, delta } = e
      if (this.#started) this.#run(() => this.#writer.delta(messageId, delta))
    } else if (e.type === 'tool' && isObject(e.part)) {
      const part = e.part
      if (this.#started) this.#run(() => this.#writer.tool(part))
    } else if (e.type === 'message') this.#run(this.#sync)
    else if (e.type === 'busy' && e.busy === false && this.#posted) this.#run(this.#finishIfIdle)
  }

  /** Writes the stored messages after the last one written (a continuation: from its first outcome). */
  #sync = async () => {
    const all = await this.server.store.listMessages(this.post.conversation.id)
    if (this.#started && this.#after === undefined) {
      // A continuation with no outcome to wait for writes only what comes next.
      this.#after = all[all.length - 1]?.id ?? ''
      return
    }
    let from = this.#after === undefined ? -1 : all.findIndex((m) => m.id === this.#after)
    if (!this.#started) {
      // A continuation starts at the first outcome of the confirmations it continues.
      const first = all.findIndex(
        (m) =>
          m.agent?.role === 'tool' &&
          m.agent.confirmId !== undefined &&
          this.#waiting.has(m.agent.toolCallId),
      )
      if (first < 0) return
      this.#started = true
      from = first - 1
    }
    if (from < 0 && this.#after !== undefined) return
    for (const m of all.slice(from + 1)) {
      if (m.agent?.role === 'tool' && m.agent.confirmId !== undefined)
        this.#waiting.delete(m.agent.toolCallId)
      this.#writer.message(m, all)
      this.#after = m.id
    }
  }

  #finishIfIdle = async () => {
    if (this.#closed || !this.#started || this.#waiting.size > 0) return
    if (await this.server.agent.busyAnywhere(this.post.conversation.id)) return
    await this.#sync()
    this.#write({ type: 'finish-step' })
    this.#write({ type: 'finish', finishReason: 'stop' })
    this.#close()
  }
}

/** A `useChat` UI message as {@link uiMessagesOf} builds it: structurally the AI SDK's `UIMessage`. */
export interface UiMessage {
  id: string
  role: 'user' | 'assistant'
  parts: Record<string, unknown>[]
}

/**
 * The conversation's history as `useChat` UI messages (pass them as `useChat({ messages })` after a reload): the
 * user's messages, and the agent's text and page calls as text and typed tool parts in the states the stream
 * would have left them in. A call still waiting for the user is `approval-requested` with the confirmId of its
 * latest card (a decision asked again on the new page load has a new one).
 */
export async function uiMessagesOf(
  store: Pick<Store, 'listMessages' | 'listConfirms'>,
  conversationId: string,
): Promise<UiMessage[]> {
  const all = await store.listMessages(conversationId)
  const latest = new Map<string, string>()
  for (const b of await store.listConfirms(conversationId))
    if (b.state === 'pending') latest.set(b.toolCallId, b.confirmId)
  const out: UiMessage[] = []
  let current: UiMessage | undefined
  const texts = new Map<string, Record<string, unknown>>()
  const calls = new Map<string, Record<string, unknown>>()
  const writer = new ChunkWriter((chunk) => {
    const parts = current!.parts
    const call = typeof chunk.toolCallId === 'string' ? calls.get(chunk.toolCallId) : undefined
    switch (chunk.type) {
      case 'text-start': {
        const part = { type: 'text', text: '', state: 'done' }
        texts.set(chunk.id as string, part)
        parts.push(part)
        return
      }
      case 'text-delta': {
        const part = texts.get(chunk.id as string)
        if (part) part.text = `${part.text as string}${chunk.delta as string}`
        return
      }
      case 'tool-input-available': {
        const part: Record<string, unknown> = {
          type: `tool-${chunk.toolName as string}`,
          toolCallId: chunk.toolCallId,
          state: 'input-available',
          input: chunk.input,
          ...(chunk.title === undefined ? {} : { title: chunk.title }),
        }
        calls.set(chunk.toolCallId as string, part)
        parts.push(part)
        return
      }
      case 'tool-approval-request':
        if (!call) return
        call.state = 'approval-requested'
        call.approval = {
          id: latest.get(chunk.toolCallId as string) ?? chunk.approvalId,
          ...(chunk.reason === undefined ? {} : { requestReason: chunk.reason }),
        }
        return
      case 'tool-output-available':
        if (!call) return
        call.state = 'output-available'
        call.output = chunk.output
        if (call.approval) call.approval = { ...(call.approval as object), approved: true }
        return
      case 'tool-output-denied':
        if (!call) return
        call.state = 'output-denied'
        call.approval = { ...((call.approval as object) ?? { id: chunk.toolCallId }), approved: false }
        return
      case 'tool-output-error':
        if (!call) return
        call.state = 'output-error'
        call.errorText = chunk.errorText
        return
    }
  })
  for (const m of all) {
    if (m.role === 'user') {
      current = undefined
      if (m.visible) out.push({ id: m.id, role: 'user', parts: [{ type: 'text', text: m.text }] })
      continue
    }
    if (!current) {
      current = { id: m.id, role: 'assistant', parts: [] }
      out.push(current)
    }
    writer.message(m, all)
  }
  return out.filter((m) => m.parts.length > 0)
}

/** The tool call id of each approval in `message`, by approval id (the first part with it). */
function toolCallsByApproval(message: Record<string, unknown>): Map<string, string> {
  const parts = Array.isArray(message.parts) ? message.parts : []
  const out = new Map<string, string>()
  for (const part of parts) {
    if (isObject(part) && isObject(part.approval) && typeof part.approval.id === 'string')
      if (typeof part.toolCallId === 'string' && !out.has(part.approval.id))
        out.set(part.approval.id, part.toolCallId)
  }
  return out
}

/**
 * The Next.js form: `export const { GET, POST } = uiMessageStreamRoute(server)` in `app/api/chat/route.ts` (`GET
 * ?id=` answers the conversation's messages for `useChat({ messages })`).
 */
export function uiMessageStreamRoute(
  server: UiStreamServer,
  options?: UiMessageStreamOptions,
): { GET: (request: Request) => Promise<Response>; POST: (request: Request) => Promise<Response> } {
  const handler = uiMessageStreamHandler(server, options)
  return { GET: handler, POST: handler }
}
