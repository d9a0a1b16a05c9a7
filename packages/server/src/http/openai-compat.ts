import { MAX_DEPTH } from '@toolmark/protocol'
import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { AgentMessage, LlmTool, Provider, ProviderEvent, ToolCall } from '../agent/types.ts'
import { MAX_PROVIDER_TEXT } from '../shared/bounds.ts'
import { MAX_MESSAGE_LENGTH } from '../shared/contract.ts'
import { nestedDeeperThan } from '../shared/json-depth.ts'
import { readLimited } from './body.ts'

/*
 * Any provider (the offline agent `@toolmark/offline-agent`, for one) as an OpenAI-compatible Chat Completions endpoint,
 * POST /v1/chat/completions, so any backend with a Chat Completions client (the Laravel reference's
 * agent loop, for one) gets the same model. Request: `messages` (system, user, assistant with
 * `tool_calls`, tool) and `tools` (`{ type: 'function', function: { name, description, parameters } }`).
 * Answer: with `stream: true`, `chat.completion.chunk` events (content deltas, then each tool call
 * as one delta with its index) ending in `data: [DONE]`; otherwise one `chat.completion`.
 * Malformed requests get 400 `{ error: { message, type: 'invalid_request_error' } }`. Limits, checked before
 * anything reaches the provider: the body is read up to {@link MAX_CHAT_COMPLETIONS_BYTES} and no further (413,
 * `code: 'body_too_large'`); a user message over `MAX_MESSAGE_LENGTH` (4000) characters, or any other message,
 * tool call arguments or tool description over `MAX_PROVIDER_TEXT` (32768), is refused with 400 (`code:
 * 'message_too_long'` / `'text_too_long'`).
 * The wire format has no field for a confirmation's outcome: a second tool message for a call whose
 * first answer was `needs_confirmation` is that outcome, and is read as the result of its confirmId.
 * It serves no data of its own and needs no session; `createToolmarkServer` mounts it (option
 * `chatCompletions`) behind its Host/Origin check (a rebinding Host or a foreign Origin gets 403).
 */

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Largest request body of `POST /v1/chat/completions`, in bytes: reading stops there and the answer is 413. */
export const MAX_CHAT_COMPLETIONS_BYTES = 1_048_576

/** A request over one of the endpoint's text limits (400 with its `code`). */
class TextLimitError extends TypeError {
  constructor(
    message: string,
    readonly code: 'message_too_long' | 'text_too_long',
  ) {
    super(message)
  }
}

/** `text` when it is within `max` UTF-16 code units, else a {@link TextLimitError} naming `what`. */
function within(text: string, max: number, what: string): string {
  if (text.length <= max) return text
  throw new TextLimitError(
    `${what} is ${text.length} characters long; the limit is ${max}`,
    max === MAX_MESSAGE_LENGTH ? 'message_too_long' : 'text_too_long',
  )
}

/** The confirmId of a tool message whose result (maybe wrapped as untrusted content) is `needs_confirmation`. */
function pendingConfirmId(content: string): string | undefined {
  let value: unknown
  try {
    value = JSON.parse(content)
  } catch {
    return undefined
  }
  const result = isObject(value) && value.untrustedContent === true ? value.result : value
  return isObject(result) && result.status === 'needs_confirmation' && typeof result.confirmId === 'string'
    ? result.confirmId
    : undefined
}

/** Chat Completions messages → the provider-neutral request; throws a TypeError for malformed input. */
export function fromChatCompletions(body: unknown): {
  system: string
  messages: AgentMessage[]
  tools: LlmTool[]
} {
  if (!isObject(body) || !Array.isArray(body.messages)) throw new TypeError('messages must be an array')
  let system = ''
  const messages: AgentMessage[] = []
  const names = new Map<string, string>()
  /** toolCallId → the confirmId its `needs_confirmation` answer carried. */
  const waiting = new Map<string, string>()
  for (const m of body.messages) {
    if (!isObject(m) || typeof m.role !== 'string') throw new TypeError('each message needs a role')
    const content = typeof m.content === 'string' ? m.content : ''
    // Every text is bounded before a provider sees it (the offline planner's cost grows with the text).
    if (m.role === 'user') within(content, MAX_MESSAGE_LENGTH, 'a user message')
    else within(content, MAX_PROVIDER_TEXT, `a ${m.role} message`)
    if (m.role === 'system' || m.role === 'developer') system += (system ? '\n\n' : '') + content
    else if (m.role === 'user') messages.push({ role: 'user', text: content })
    else if (m.role === 'assistant') {
      const toolCalls: ToolCall[] = (Array.isArray(m.tool_calls) ? m.tool_calls : []).map((c: unknown) => {
        const fn = isObject(c) && isObject(c.function) ? c.function : {}
        const id = isObject(c) && typeof c.id === 'string' ? c.id : ''
        const name = typeof fn.name === 'string' ? fn.name : ''
        let input: unknown = {}
        if (typeof fn.arguments === 'string') within(fn.arguments, MAX_PROVIDER_TEXT, 'tool call arguments')
        try {
          input = typeof fn.arguments === 'string' && fn.arguments !== '' ? JSON.parse(fn.arguments) : {}
        } catch {
          throw new TypeError('tool call arguments must be JSON')
        }
        names.set(id, name)
        return { id, name, input }
      })
      messages.push({ role: 'assistant', text: content, toolCalls })
    } else if (m.role === 'tool') {
      const toolCallId = typeof m.tool_call_id === 'string' ? m.tool_call_id : ''
      const name = names.get(toolCallId) ?? ''
      const confirmId = waiting.get(toolCallId)
      if (confirmId !== undefined) {
        waiting.delete(toolCallId)
        messages.push({ role: 'tool', toolCallId, name, content, confirmId })
        continue
      }
      const pending = pendingConfirmId(content)
      if (pending !== undefined) waiting.set(toolCallId, pending)
      messages.push({ role: 'tool', toolCallId, name, content })
    } else throw new TypeError(`unknown role ${JSON.stringify(m.role)}`)
  }
  const tools: LlmTool[] = (Array.isArray(body.tools) ? body.tools : []).map((t: unknown) => {
    const fn = isObject(t) && isObject(t.function) ? t.function : undefined
    if (!fn || typeof fn.name !== 'string') throw new TypeError('each tool needs function.name')
    const description = typeof fn.description === 'string' ? fn.description : ''
    return {
      name: within(fn.name, MAX_PROVIDER_TEXT, 'a tool name'),
      description: within(description, MAX_PROVIDER_TEXT, 'a tool description'),
      input_schema: isObject(fn.parameters) ? fn.parameters : {},
    }
  })
  return { system, messages, tools }
}

/**
 * The Hono routes; mount with `app.route('/', chatCompletions())` behind the Host/Origin check and
 * before the session middleware.
 */
export function chatCompletions(provider: Provider): Hono {
  const app = new Hono()
  app.post('/v1/chat/completions', async (c) => {
    const invalid = (message: string, code?: string) =>
      c.json({ error: { message, type: 'invalid_request_error', ...(code ? { code } : {}) } }, 400)
    const raw = await readLimited(c.req.raw, MAX_CHAT_COMPLETIONS_BYTES)
    if (raw === undefined) {
      const message = `request body over ${MAX_CHAT_COMPLETIONS_BYTES} bytes`
      return c.json({ error: { message, type: 'invalid_request_error', code: 'body_too_large' } }, 413)
    }
    // Refused before the parser spends time on it (see nestedDeeperThan).
    if (nestedDeeperThan(raw, MAX_DEPTH))
      return invalid(`body nested deeper than ${MAX_DEPTH} levels`, 'too_deep')
    let body: unknown
    let request: ReturnType<typeof fromChatCompletions>
    try {
      body = JSON.parse(raw)
      request = fromChatCompletions(body)
    } catch (error) {
      if (error instanceof TextLimitError) return invalid(error.message, error.code)
      return invalid(error instanceof TypeError ? error.message : 'body must be JSON')
    }
    const model = isObject(body) && typeof body.model === 'string' ? body.model : provider.name
    const id = `chatcmpl-${crypto.randomUUID()}`
    const created = Math.floor(Date.now() / 1000)
    const events: ProviderEvent[] = []
    for await (const event of provider.stream({ ...request, signal: c.req.raw.signal })) events.push(event)
    const text = events.map((e) => (e.type === 'text' ? e.delta : '')).join('')
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []))
    const toolCalls = calls.map((call, index) => ({
      index,
      id: call.id,
      type: 'function' as const,
      function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) },
    }))
    const finish = calls.length > 0 ? 'tool_calls' : 'stop'
    if (!(isObject(body) && body.stream === true)) {
      return c.json({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text === '' ? null : text,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map(({ index: _, ...call }) => call) } : {}),
            },
            finish_reason: finish,
          },
        ],
      })
    }
    const response = streamSSE(c, async (stream) => {
      const chunk = (delta: Json, finishReason: string | null = null) =>
        stream.writeSSE({
          data: JSON.stringify({
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [{ index: 0, delta, finish_reason: finishReason }],
          }),
        })
      await chunk({ role: 'assistant', content: '' })
      for (const event of events) if (event.type === 'text') await chunk({ content: event.delta })
      for (const call of toolCalls) await chunk({ tool_calls: [call] })
      await chunk({}, finish)
      await stream.writeSSE({ data: '[DONE]' })
    })
    // One answer per connection: clients that read until EOF (PHP's HTTP/1.0 stream wrapper) finish at once.
    response.headers.set('Connection', 'close')
    return response
  })
  return app
}
