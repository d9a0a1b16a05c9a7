import type { Provider, ProviderEvent, ProviderRequest } from '../types.ts'
import { wireHistory } from './history.ts'
import { errorBody, field, num, readSse, text } from './sse.ts'

/** Settings of the Anthropic Messages API provider. */
export interface AnthropicOptions {
  apiKey: string
  /** API origin, default `https://api.anthropic.com`. */
  baseUrl?: string
  model: string
  maxTokens?: number
  fetch?: typeof fetch
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string }

/** Builds the Messages API `messages` array: consecutive user-role blocks merged into one message. */
export function anthropicMessages(
  request: ProviderRequest,
): Array<{ role: 'user' | 'assistant'; content: Block[] }> {
  const out: Array<{ role: 'user' | 'assistant'; content: Block[] }> = []
  const push = (role: 'user' | 'assistant', block: Block) => {
    const last = out.at(-1)
    if (last && last.role === role) last.content.push(block)
    else out.push({ role, content: [block] })
  }
  for (const m of wireHistory(request.messages, request.tools.length > 0)) {
    if (m.role === 'user') push('user', { type: 'text', text: m.text })
    else if (m.role === 'note') push('user', { type: 'text', text: m.text })
    else if (m.role === 'tool')
      push('user', { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content })
    else {
      if (m.text !== '') push('assistant', { type: 'text', text: m.text })
      for (const c of m.toolCalls)
        push('assistant', { type: 'tool_use', id: c.id, name: c.name, input: c.input })
    }
  }
  return out
}

/**
 * The Anthropic Messages API with streaming (SSE): text deltas are streamed, `tool_use` blocks are
 * assembled from their `input_json_delta` parts and emitted when the block stops. Tool definitions
 * are sent exactly as given (byte-identical `page_call` / `page_describe`).
 */
export class AnthropicProvider implements Provider {
  readonly name = 'anthropic'
  readonly #o: AnthropicOptions

  constructor(options: AnthropicOptions) {
    this.#o = options
  }

  /** Streams one assistant turn; throws on HTTP or stream errors. */
  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const body: Record<string, unknown> = {
      model: this.#o.model,
      max_tokens: this.#o.maxTokens ?? 1024,
      system: request.system,
      messages: anthropicMessages(request),
      stream: true,
    }
    if (request.tools.length > 0) body.tools = request.tools
    const response = await (this.#o.fetch ?? fetch)(
      `${(this.#o.baseUrl ?? 'https://api.anthropic.com').replace(/\/$/, '')}/v1/messages`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'x-api-key': this.#o.apiKey,
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify(body),
        ...(request.signal ? { signal: request.signal } : {}),
      },
    )
    if (!response.ok || !response.body)
      throw new Error(`anthropic: HTTP ${response.status} ${await errorBody(response)}`)
    const tools = new Map<number, { id: string; name: string; json: string }>()
    for await (const event of readSse(response.body)) {
      const data: unknown = JSON.parse(event.data)
      const index = num(data, 'index')
      const block = field(data, 'content_block')
      const delta = field(data, 'delta')
      switch (text(data, 'type')) {
        case 'content_block_start':
          if (block.type === 'tool_use')
            tools.set(index, { id: text(block, 'id'), name: text(block, 'name'), json: '' })
          else if (text(block, 'text') !== '') yield { type: 'text', delta: text(block, 'text') }
          break
        case 'content_block_delta': {
          if (delta.type === 'text_delta') yield { type: 'text', delta: text(delta, 'text') }
          const tool = tools.get(index)
          if (delta.type === 'input_json_delta' && tool) tool.json += text(delta, 'partial_json')
          break
        }
        case 'content_block_stop': {
          const tool = tools.get(index)
          if (!tool) break
          tools.delete(index)
          const input: unknown = tool.json === '' ? {} : JSON.parse(tool.json)
          yield { type: 'tool_call', call: { id: tool.id, name: tool.name, input } }
          break
        }
        case 'error': {
          const error = field(data, 'error')
          throw new Error(`anthropic: ${text(error, 'type') || 'error'}: ${text(error, 'message')}`)
        }
      }
    }
  }
}
