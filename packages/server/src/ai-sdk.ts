/**
 * `@toolmark/server/ai-sdk`: Toolmark pages on the Vercel AI SDK (`ai` 7, an optional peer dependency).
 *
 * - {@link pageTools}: the page's current tools as AI SDK tools (`page_call`, `page_describe`) for your own
 *   `streamText` / `generateText`; `execute` calls the page over the bridge.
 * - {@link aiSdkProvider}: any AI SDK language model as the {@link Provider} of Toolmark's own agent loop (the
 *   chat API, confirmation cards and the follow-up turn after a `confirmed`).
 */
import type { ToolManifestSummary, ToolResult } from '@toolmark/core'
import { modelResult, PAGE_DESCRIBE_TOOL, pageCallTool } from '@toolmark/protocol'
import {
  type JSONSchema7,
  jsonSchema,
  type LanguageModel,
  type ModelMessage,
  streamText,
  type Tool,
  type ToolSet,
  tool,
} from 'ai'
import { wireHistory } from './agent/providers/history.ts'
import type { LlmTool, Provider, ProviderEvent, ProviderRequest } from './agent/types.ts'
import type { Relay } from './relay/relay.ts'
import { declaredPaths, secretsAt } from './shared/redact.ts'

/** The conversation whose page the tools call, and its user (as `authenticate` or the demo session gave it). */
export interface PageScope {
  userId: string
  conversationId: string
}

/** What {@link pageTools} reads from a Toolmark server: its relay (`createToolmarkServer(...)` has one). */
export interface PageToolsServer {
  readonly relay: Pick<Relay, 'page' | 'request' | 'toolEntry'>
}

/** The input of `page_call`: a tool's exact manifest name and its input. */
export interface PageCallInput {
  tool: string
  input?: Record<string, unknown>
}

/** The input of `page_describe`: a tool's exact manifest name. */
export interface PageDescribeInput {
  tool: string
}

/** The two tools {@link pageTools} returns, keyed by the names the model sees. */
export interface PageToolSet extends ToolSet {
  page_call: Tool<PageCallInput, unknown>
  page_describe: Tool<PageDescribeInput, unknown>
}

/** The page tools read no AI SDK tool context (`experimental_context`): the scope is bound when they are made. */
type NoContext = Record<string, never>

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The page's tools, as bound to `scope.conversationId` right now, as AI SDK tools: exactly
 * `page_call` (the fixed preamble plus the manifest rendered by `pageCallTool` from
 * `@toolmark/protocol`) and `page_describe`, with the same bytes turn after turn for the same
 * manifest, so a provider's prompt cache keeps hitting. Call it again for each request: after a
 * navigation the page has other tools.
 *
 * `execute` sends a `call` (or `describe`) to the page over the bridge with the AI SDK's
 * `toolCallId` and `abortSignal`: an abort withdraws it (the page gets a `cancel`; the result is
 * `cancelled`), and a page that does not answer within the server's `callDeadlineMs` gives the
 * timeout result. The model gets the page's `ToolResult` as `modelResult` from `@toolmark/protocol` shapes it
 * (a structured tool's `ok` data with a short note; wrapped as untrusted content for tools with
 * `hints.untrustedContent`), `needs_confirmation` included: the card is on the page, and the
 * user's answer reaches Toolmark's agent loop, which records the outcome and runs one follow-up
 * turn without tools on the server's `provider` (use {@link aiSdkProvider} with the same model).
 */
export async function pageTools(server: PageToolsServer, scope: PageScope): Promise<PageToolSet> {
  const relay = server.relay
  const rendered = await relay.page(scope.conversationId)
  const manifest: readonly ToolManifestSummary[] = rendered?.tools ?? []
  const call = pageCallTool(manifest)
  const describe = PAGE_DESCRIBE_TOOL as LlmTool
  return {
    page_call: tool<PageCallInput, unknown, NoContext>({
      description: call.description,
      inputSchema: jsonSchema<PageCallInput>(call.input_schema as JSONSchema7),
      execute: async (input, { toolCallId, abortSignal }) => {
        if (!isObject(input) || typeof input.tool !== 'string')
          return { status: 'invalid', issues: [{ path: 'tool', message: 'Expected the exact tool name' }] }
        const toolInput = isObject(input.input) ? input.input : {}
        const entry = manifest.find((t) => t.name === input.tool)
        // The rev of the manifest the model saw, when the call goes to that same page load.
        const bound = await relay.page(scope.conversationId)
        const rev = rendered && bound?.clientId === rendered.clientId ? rendered.rev : undefined
        const outcome = await relay.request(
          { ...scope, toolCallId },
          {
            kind: 'call',
            tool: input.tool,
            input: toolInput,
            ...(rev === undefined ? {} : { rev }),
            secrets: secretsAt(toolInput, declaredPaths(entry)),
            ...(abortSignal ? { signal: abortSignal } : {}),
          },
        )
        const current = outcome.clientId ? await relay.toolEntry(outcome.clientId, input.tool) : undefined
        const untrusted = current?.hints?.untrustedContent === true || entry?.hints?.untrustedContent === true
        return modelResult(outcome.result, current, untrusted)
      },
    }),
    page_describe: tool<PageDescribeInput, unknown, NoContext>({
      description: describe.description,
      inputSchema: jsonSchema<PageDescribeInput>(describe.input_schema as JSONSchema7),
      execute: async (input, { toolCallId, abortSignal }) => {
        if (!isObject(input) || typeof input.tool !== 'string')
          return { status: 'invalid', issues: [{ path: 'tool', message: 'Expected the exact tool name' }] }
        const outcome = await relay.request(
          { ...scope, toolCallId },
          { kind: 'describe', tool: input.tool, ...(abortSignal ? { signal: abortSignal } : {}) },
        )
        return outcome.result satisfies ToolResult
      },
    }),
  }
}

/** Options of {@link aiSdkProvider}. */
export interface AiSdkProviderOptions {
  /** The AI SDK language model (`anthropic('claude-sonnet-4-5')`, `openai('gpt-4o-mini')`, a gateway id, a mock). */
  model: LanguageModel
  /** The provider's name in logs and the chat's error line. Default `ai-sdk`. */
  name?: string
  /** Passed to `streamText` as is (retries of the AI SDK; default its own, 2). */
  maxRetries?: number
  /** Passed to `streamText` as is: the most tokens one turn may produce. */
  maxOutputTokens?: number
}

/**
 * An AI SDK language model as the {@link Provider} of Toolmark's agent loop: each turn is one
 * `streamText` call with the loop's system prompt, its history (strict call/result pairs,
 * confirmation outcomes as marked user notes, as for the other providers) and the loop's two tools
 * without `execute`, so the loop runs them itself (bindings, deadlines, masking, untrusted wrapping)
 * and the follow-up turn after a `confirmed` gets no tools. Text deltas and tool calls are streamed
 * back; an error part (HTTP, model, abort) rejects the turn, which the loop logs masked.
 */
export function aiSdkProvider(options: AiSdkProviderOptions): Provider {
  const name = options.name ?? 'ai-sdk'
  return {
    name,
    async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
      const tools: ToolSet = {}
      for (const t of request.tools) {
        tools[t.name] = tool({
          description: t.description,
          inputSchema: jsonSchema(t.input_schema as JSONSchema7),
        })
      }
      const result = streamText({
        model: options.model,
        system: request.system,
        messages: toModelMessages(request),
        ...(request.tools.length > 0 ? { tools } : {}),
        ...(request.signal ? { abortSignal: request.signal } : {}),
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        // The AI SDK's default prints the error to the console unmasked (it may echo the request):
        // the error part below rejects the turn instead, and the loop logs it masked.
        onError: () => {},
      })
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') yield { type: 'text', delta: part.text }
        else if (part.type === 'tool-call')
          yield { type: 'tool_call', call: { id: part.toolCallId, name: part.toolName, input: part.input } }
        else if (part.type === 'error') throw part.error
        else if (part.type === 'abort') throw new Error(`${name}: the request was aborted`)
      }
    },
  }
}

/** The loop's history as AI SDK model messages (see `wireHistory`: what strict providers get). */
function toModelMessages(request: ProviderRequest): ModelMessage[] {
  const out: ModelMessage[] = []
  for (const m of wireHistory(request.messages, request.tools.length > 0)) {
    switch (m.role) {
      case 'user':
      case 'note':
        out.push({ role: 'user', content: m.text })
        break
      case 'assistant':
        if (m.text === '' && m.toolCalls.length === 0) break // an empty turn: nothing to send
        out.push({
          role: 'assistant',
          content: [
            ...(m.text === '' ? [] : [{ type: 'text' as const, text: m.text }]),
            ...m.toolCalls.map((c) => ({
              type: 'tool-call' as const,
              toolCallId: c.id,
              toolName: c.name,
              input: c.input,
            })),
          ],
        })
        break
      case 'tool':
        out.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: m.toolCallId,
              toolName: m.name,
              output: { type: 'text', value: m.content },
            },
          ],
        })
        break
    }
  }
  return out
}
