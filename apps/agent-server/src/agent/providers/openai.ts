import type { Provider, ProviderEvent, ProviderRequest } from '../types.ts'
import { wireHistory } from './history.ts'
import { errorBody, field, num, readSse, text } from './sse.ts'

/** Settings of the OpenAI-compatible Chat Completions provider. */
export interface OpenAiOptions {
  apiKey: string
  /** Base URL ending before `/chat/completions`, default `https://api.openai.com/v1` (Ollama: `http://127.0.0.1:11434/v1`). */
  baseUrl?: string
  model: string
  fetch?: typeof fetch
}

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant'
      content: string | null
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>
    }
  | { role: 'tool'; tool_call_id: string; content: string }

/** Builds the Chat Completions `messages` array (system prompt first). */
export function openAiMessages(request: ProviderRequest): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: request.system }]
  for (const m of wireHistory(request.messages, request.tools.length > 0)) {
    if (m.role === 'user' || m.role === 'note') out.push({ role: 'user', content: m.text })
    else if (m.role === 'tool') out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content })
    else {
      const message: ChatMessage = { role: 'assistant', content: m.text === '' ? null : m.text }
      if (m.toolCalls.length > 0) {
        message.tool_calls = m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) },
        }))
      }
      out.push(message)
    }
  }
  return out
}

/**
 * An OpenAI-compatible Chat Completions API with streaming: content deltas are streamed; tool
 * calls are assembled per `index` from their `function.arguments` fragments and emitted when the
 * stream ends. Tools are sent as `{ type: 'function', function: { name, description, parameters } }`
 * with the definitions' `input_schema` as `parameters`.
 */
export class OpenAiProvider implements Provider {
  readonly name = 'openai'
  readonly #o: OpenAiOptions

  constructor(options: OpenAiOptions) {
    this.#o = options
  }

  /** Streams one assistant turn; throws on HTTP or stream errors. */
  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const body: Record<string, unknown> = {
      model: this.#o.model,
      messages: openAiMessages(request),
      stream: true,
    }
    if (request.tools.length > 0) {
      body.tools = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.input_schema },
      }))
    }
    const base = (this.#o.baseUrl ?? 'https://api.openai.com/v1').replace(/\/$/, '')
    const response = await (this.#o.fetch ?? fetch)(`${base}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${this.#o.apiKey}`,
      },
      body: JSON.stringify(body),
      ...(request.signal ? { signal: request.signal } : {}),
    })
    if (!response.ok || !response.body)
      throw new Error(`openai: HTTP ${response.status} ${await errorBody(response)}`)
    const calls = new Map<number, { id: string; name: string; args: string }>()
    for await (const event of readSse(response.body)) {
      if (event.data === '[DONE]') break
      const data: unknown = JSON.parse(event.data)
      const error = field(data, 'error')
      if (Object.keys(error).length > 0) throw new Error(`openai: ${text(error, 'message') || 'error'}`)
      const choices = (data as { choices?: unknown }).choices
      const delta = field(Array.isArray(choices) ? choices[0] : undefined, 'delta')
      if (text(delta, 'content') !== '') yield { type: 'text', delta: text(delta, 'content') }
      const parts = Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []
      for (const part of parts) {
        const index = num(part, 'index')
        const call = calls.get(index) ?? { id: '', name: '', args: '' }
        const fn = field(part, 'function')
        if (text(part, 'id') !== '') call.id = text(part, 'id')
        call.name += text(fn, 'name')
        call.args += text(fn, 'arguments')
        calls.set(index, call)
      }
    }
    for (const [, call] of [...calls].sort((a, b) => a[0] - b[0])) {
      yield {
        type: 'tool_call',
        call: { id: call.id, name: call.name, input: call.args === '' ? {} : JSON.parse(call.args) },
      }
    }
  }
}
