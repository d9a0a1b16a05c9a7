import Anthropic from '@anthropic-ai/sdk'
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages'
import type { Provider, ProviderEvent, ProviderRequest } from '../types.ts'
import { providerError } from './errors.ts'
import { wireHistory } from './history.ts'

/** Settings of the Anthropic Messages API provider. */
export interface AnthropicOptions {
  apiKey: string
  /** API origin, default `https://api.anthropic.com`. */
  baseUrl?: string
  model: string
  maxTokens?: number
  /** Retries of a failed request (connection errors, 408, 409, 429, 5xx), with backoff; default 2. */
  maxRetries?: number
  fetch?: typeof fetch
}

type Block = Exclude<MessageParam['content'], string>[number]

/** Builds the Messages API `messages` array: consecutive user-role blocks merged into one message. */
export function anthropicMessages(request: ProviderRequest): MessageParam[] {
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
 * The Anthropic Messages API with streaming, on the official SDK (`@anthropic-ai/sdk`: retries
 * with backoff, typed errors, abort): text deltas are streamed, and each `tool_use` block is
 * emitted when it stops, with the input the SDK assembled. Tool definitions are sent exactly as
 * given (byte-identical `page_call` / `page_describe`, so prompt caching holds).
 */
export class AnthropicProvider implements Provider {
  readonly name = 'anthropic'
  readonly #o: AnthropicOptions
  readonly #client: Anthropic

  constructor(options: AnthropicOptions) {
    this.#o = options
    this.#client = new Anthropic({
      apiKey: options.apiKey,
      // Only what the configuration says: no credentials or base URL read from the environment.
      authToken: null,
      baseURL: (options.baseUrl ?? 'https://api.anthropic.com').replace(/\/$/, ''),
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    })
  }

  /** Streams one assistant turn; throws on HTTP or stream errors (after the SDK's retries). */
  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const stream = this.#client.messages.stream(
      {
        model: this.#o.model,
        max_tokens: this.#o.maxTokens ?? 1024,
        system: request.system,
        messages: anthropicMessages(request),
        ...(request.tools.length > 0 ? { tools: request.tools as Tool[] } : {}),
      },
      request.signal ? { signal: request.signal } : {},
    )
    try {
      for await (const event of stream) {
        if (event.type === 'content_block_start' && event.content_block.type === 'text') {
          if (event.content_block.text !== '') yield { type: 'text', delta: event.content_block.text }
        } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
          yield { type: 'text', delta: event.delta.text }
        } else if (event.type === 'content_block_stop') {
          const block = stream.currentMessage?.content[event.index]
          if (block?.type === 'tool_use')
            yield { type: 'tool_call', call: { id: block.id, name: block.name, input: block.input } }
        }
      }
    } catch (error) {
      throw providerError(this.name, error, Anthropic)
    }
  }
}
