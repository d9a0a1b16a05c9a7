import OpenAI from 'openai'
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions'
import type { LlmTool, Provider, ProviderEvent, ProviderRequest } from '../types.ts'
import { providerError } from './errors.ts'
import { wireHistory } from './history.ts'

/** Settings of the OpenAI-compatible Chat Completions provider. */
export interface OpenAiOptions {
  apiKey: string
  /** Base URL ending before `/chat/completions`, default `https://api.openai.com/v1` (Ollama: `http://127.0.0.1:11434/v1`). */
  baseUrl?: string
  model: string
  /** Retries of a failed request (connection errors, 408, 409, 429, 5xx), with backoff; default 2. */
  maxRetries?: number
  fetch?: typeof fetch
}

/** Builds the Chat Completions `messages` array (system prompt first). */
export function openAiMessages(request: ProviderRequest): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: 'system', content: request.system }]
  for (const m of wireHistory(request.messages, request.tools.length > 0)) {
    if (m.role === 'user' || m.role === 'note') out.push({ role: 'user', content: m.text })
    else if (m.role === 'tool') out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content })
    else {
      out.push({
        role: 'assistant',
        content: m.text === '' ? null : m.text,
        ...(m.toolCalls.length > 0
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) },
              })),
            }
          : {}),
      })
    }
  }
  return out
}

/** A tool definition in Chat Completions form: `{ type: 'function', function: { name, description, parameters } }`. */
export function openAiTool(tool: LlmTool): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
  }
}

/**
 * An OpenAI-compatible Chat Completions API with streaming, on the official SDK (`openai`:
 * retries with backoff, typed errors, abort; any server that speaks Chat Completions through
 * `baseUrl`): content deltas are streamed; tool calls are assembled per `index` from their
 * `function.arguments` fragments and emitted when the stream ends. The definitions are mapped by
 * {@link openAiTool}, field for field, so the same tools give the same bytes on every turn.
 */
export class OpenAiProvider implements Provider {
  readonly name = 'openai'
  readonly #o: OpenAiOptions
  readonly #client: OpenAI

  constructor(options: OpenAiOptions) {
    this.#o = options
    this.#client = new OpenAI({
      apiKey: options.apiKey,
      // Only what the configuration says: no organization or project read from the environment.
      organization: null,
      project: null,
      baseURL: (options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/$/, ''),
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    })
  }

  /** Streams one assistant turn; throws on HTTP or stream errors (after the SDK's retries). */
  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const calls = new Map<number, { id: string; name: string; args: string }>()
    try {
      const stream = await this.#client.chat.completions.create(
        {
          model: this.#o.model,
          messages: openAiMessages(request),
          stream: true,
          ...(request.tools.length > 0 ? { tools: request.tools.map(openAiTool) } : {}),
        },
        request.signal ? { signal: request.signal } : {},
      )
      for await (const chunk of stream) {
        const delta = chunk.choices?.[0]?.delta
        if (!delta) continue
        if (typeof delta.content === 'string' && delta.content !== '')
          yield { type: 'text', delta: delta.content }
        for (const part of delta.tool_calls ?? []) {
          const call = calls.get(part.index) ?? { id: '', name: '', args: '' }
          if (part.id) call.id = part.id
          call.name += part.function?.name ?? ''
          call.args += part.function?.arguments ?? ''
          calls.set(part.index, call)
        }
      }
    } catch (error) {
      throw providerError(this.name, error, OpenAI)
    }
    for (const [, call] of [...calls].sort((a, b) => a[0] - b[0])) {
      yield {
        type: 'tool_call',
        call: { id: call.id, name: call.name, input: call.args === '' ? {} : JSON.parse(call.args) },
      }
    }
  }
}
