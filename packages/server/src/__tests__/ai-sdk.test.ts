import { randomUUID } from 'node:crypto'
import { bridge } from '@toolmark/bridge'
import { websocketTransport } from '@toolmark/bridge/websocket'
import { createToolmark, ok, type Toolmark } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { PAGE_DESCRIBE_TOOL, pageCallTool } from '@toolmark/protocol'
import { stepCountIs, streamText } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import WebSocket from 'ws'
import { aiSdkProvider, type PageCallInput, pageTools } from '../ai-sdk.ts'
import { CANCELLED_RESULT } from '../relay/relay.ts'
import type { Browser } from './support/http-client.ts'
import { type TestServer, testServer } from './support/test-server.ts'

/*
 * `@toolmark/server/ai-sdk` against the AI SDK's own mock language model (`MockLanguageModelV4`
 * from `ai/test`, which records every request), a real relay behind `serve`, and the real page
 * side: a core registry with the bridge over `websocketTransport` (the `ws` package with the
 * session cookie, as a browser would send it).
 */

beforeAll(() => environment.setIsServer(false))
afterAll(() => environment.setIsServer(undefined))

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** One part of a model's stream (the AI SDK's `LanguageModelV3StreamPart`). */
type LanguageModelV3StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

/** One model turn as the provider streams it: some text, or one tool call. */
function turn(step: { text?: string; call?: { name: string; input: unknown } }): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }]
  if (step.text !== undefined) {
    parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: step.text })
    parts.push({ type: 'text-end', id: 't' })
  }
  if (step.call) {
    parts.push({
      type: 'tool-call',
      toolCallId: `call-${randomUUID()}`,
      toolName: step.call.name,
      input: JSON.stringify(step.call.input),
    })
  }
  const unified = step.call ? 'tool-calls' : 'stop'
  parts.push({ type: 'finish', usage, finishReason: { unified, raw: unified } })
  return parts
}

/** The AI SDK's mock model answering each request with the next scripted turn. */
function scriptedModel(steps: Array<Parameters<typeof turn>[0]>): MockLanguageModelV4 {
  let at = 0
  return new MockLanguageModelV4({
    doStream: async () => {
      const parts = turn(steps[at++] ?? { text: '' })
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  })
}

const withCookie = (cookie: string) =>
  class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { cookie } })
    }
  }

/** A page registry: a read-only search, a consequential create, and a slow tool that waits for a cancel. */
function registry(names: string[], slow: { started?: () => void; aborted?: boolean } = {}): Toolmark {
  const tm = createToolmark()
  const notes = tm.scope('notes')
  notes.register({
    name: 'search',
    description: 'Search the notes by keyword.',
    jsonSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    hints: { readOnly: true },
    run: (input) => {
      const query = String((input as { query: string }).query).toLowerCase()
      return ok({ results: names.filter((n) => n.toLowerCase().includes(query)) })
    },
  })
  notes.register({
    name: 'create',
    description: 'Create a note with a name.',
    jsonSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    summary: (input) => `Create note "${(input as { name: string }).name}"`,
    hints: { consequential: true },
    run: (input) => {
      names.push((input as { name: string }).name)
      return ok({ name: (input as { name: string }).name })
    },
  })
  notes.register({
    name: 'export',
    description: 'Export every note (slow).',
    jsonSchema: { type: 'object' },
    hints: { readOnly: true },
    run: (_input, ctx) =>
      new Promise<ReturnType<typeof ok>>((resolve) => {
        slow.started?.()
        ctx.signal.addEventListener('abort', () => {
          slow.aborted = true
          resolve(ok('stopped'))
        })
      }),
  })
  return tm
}

/** A server, a browser with a conversation, and the page attached to it (bound once this resolves). */
async function setup(options: { provider?: ReturnType<typeof aiSdkProvider>; names?: string[] } = {}) {
  const t: TestServer = await testServer(options.provider ? { provider: options.provider } : {})
  const browser: Browser = await t.browser()
  const conversation = await browser.createConversation()
  const slow: { started?: () => void; aborted?: boolean } = {}
  const tm = registry(options.names ?? ['Chess openings', 'Marathon'], slow)
  const clientId = randomUUID()
  const bound = new Promise<void>((resolve) => {
    const off = t.server.relay.on('rebound', (e) => {
      if (e.to === clientId) {
        off()
        resolve()
      }
    })
  })
  const url = `${t.server.url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${conversation}`
  const transport = websocketTransport({ url, WebSocket: withCookie(browser.cookie) })
  const dispose = tm.use(bridge({ transport, clientId }))
  cleanup.push(() => dispose?.())
  await bound
  const userId = (await t.server.store.getConversation(conversation))!.userId
  return { t, browser, conversation, tm, slow, scope: { userId, conversationId: conversation } }
}

describe('pageTools: the page as AI SDK tools for streamText', () => {
  it('calls the page over the bridge and hands its result to the model; the tool bytes stay the same across steps', async () => {
    const { t, scope } = await setup()
    const model = scriptedModel([
      { call: { name: 'page_call', input: { tool: 'notes.search', input: { query: 'chess' } } } },
      { text: 'One note: Chess openings.' },
    ])
    const tools = await pageTools(t.server, scope)
    const result = streamText({ model, tools, prompt: 'Find my chess notes', stopWhen: stepCountIs(3) })
    expect(await result.text).toBe('One note: Chess openings.')

    const [first, second] = model.doStreamCalls
    const toolResult = second!.prompt
      .flatMap((m) => (m.role === 'tool' ? m.content : []))
      .find((p) => p.type === 'tool-result')
    expect(toolResult?.output).toEqual({
      type: 'json',
      value: { status: 'ok', data: { results: ['Chess openings'] } },
    })
    // Exactly the two definitions the protocol renders for this manifest, byte for byte, every step.
    const manifest = (await t.server.relay.page(scope.conversationId))!.tools
    const call = pageCallTool(manifest)
    expect(first!.tools).toEqual([
      { type: 'function', name: 'page_call', description: call.description, inputSchema: call.input_schema },
      {
        type: 'function',
        name: 'page_describe',
        description: PAGE_DESCRIBE_TOOL.description,
        inputSchema: PAGE_DESCRIBE_TOOL.input_schema,
      },
    ])
    expect(JSON.stringify(second!.tools)).toBe(JSON.stringify(first!.tools))
    expect(JSON.stringify((await pageTools(t.server, scope)).page_call.inputSchema)).toBe(
      JSON.stringify(tools.page_call.inputSchema),
    )
  })

  it('needs_confirmation reaches the model, the card is on the page, and the approval runs one follow-up turn without tools', async () => {
    const followUp = scriptedModel([{ text: 'Done: the note Robotics is created.' }])
    const names = ['Chess openings']
    const { t, browser, conversation, tm, scope } = await setup({
      provider: aiSdkProvider({ model: followUp }),
      names,
    })
    const model = scriptedModel([
      { call: { name: 'page_call', input: { tool: 'notes.create', input: { name: 'Robotics' } } } },
      { text: 'Approve the card on the page.' },
    ])
    const result = streamText({
      model,
      tools: await pageTools(t.server, scope),
      prompt: 'Create a note Robotics',
      stopWhen: stepCountIs(3),
    })
    expect(await result.text).toBe('Approve the card on the page.')
    const toolResult = model.doStreamCalls[1]!.prompt.flatMap((m) => (m.role === 'tool' ? m.content : []))[0]
    expect(toolResult).toMatchObject({
      type: 'tool-result',
      output: { type: 'json', value: { status: 'needs_confirmation', summary: 'Create note "Robotics"' } },
    })
    const [pending] = tm.pendingConfirmations()
    expect(pending).toMatchObject({ tool: 'notes.create', summary: 'Create note "Robotics"' })
    expect(names).toEqual(['Chess openings'])

    const confirmed = new Promise<void>((resolve) => {
      const off = t.server.relay.on('confirmed', () => {
        off()
        resolve()
      })
    })
    await tm.confirmPending(pending!.confirmId, { approved: true })
    await confirmed
    await t.server.agent.idle(conversation)
    expect(names).toEqual(['Chess openings', 'Robotics'])
    // The follow-up turn: the outcome as a marked user note, and no tools offered.
    const [request] = followUp.doStreamCalls
    expect(request!.tools ?? []).toEqual([])
    expect(JSON.stringify(request!.prompt)).toContain('Outcome of the confirmation')
    const log = await browser.messages(conversation)
    expect(log.at(-1)).toMatchObject({ role: 'assistant', text: 'Done: the note Robotics is created.' })
  })

  it("the call's abort signal withdraws it: the page's run is cancelled and the model gets cancelled", async () => {
    const { t, scope, slow } = await setup()
    const tools = await pageTools(t.server, scope)
    const started = new Promise<void>((resolve) => {
      slow.started = resolve
    })
    const abort = new AbortController()
    const execute = tools.page_call.execute!
    const outcome = execute(
      { tool: 'notes.export', input: {} },
      { toolCallId: 'tc-abort', messages: [], abortSignal: abort.signal, context: {} },
    )
    await started
    abort.abort()
    expect(await outcome).toEqual(CANCELLED_RESULT)
    await expect.poll(() => slow.aborted).toBe(true)
    // An aborted signal before the call: nothing is sent.
    expect(
      await execute(
        { tool: 'notes.search', input: { query: 'x' } },
        { toolCallId: 'tc-2', messages: [], abortSignal: abort.signal, context: {} },
      ),
    ).toEqual(CANCELLED_RESULT)
  })

  it('types: the two tools, with the protocol inputs', async () => {
    const { t, scope } = await setup()
    const tools = await pageTools(t.server, scope)
    expectTypeOf(tools.page_call.execute).parameter(0).toEqualTypeOf<PageCallInput>()
    expect(Object.keys(tools)).toEqual(['page_call', 'page_describe'])
  })
})

describe('aiSdkProvider: an AI SDK model behind the agent loop', () => {
  it('runs page_call through the loop and streams the answer into the conversation', async () => {
    const model = scriptedModel([
      { call: { name: 'page_call', input: { tool: 'notes.search', input: { query: 'marathon' } } } },
      { text: 'Found: Marathon.' },
    ])
    const { browser, conversation, t } = await setup({ provider: aiSdkProvider({ model }) })
    await browser.say(conversation, 'Search for marathon')
    await t.server.agent.idle(conversation)
    const log = await browser.messages(conversation)
    expect(log.filter((m) => m.role !== 'user').map((m) => m.text)).toEqual([
      'page_call notes.search → ok (1 result)',
      'Found: Marathon.',
    ])
    const [first, second] = model.doStreamCalls
    expect(first!.prompt[0]).toMatchObject({ role: 'system' })
    expect(JSON.stringify(second!.tools)).toBe(JSON.stringify(first!.tools))
    const result = second!.prompt.flatMap((m) => (m.role === 'tool' ? m.content : []))[0]
    expect(result).toMatchObject({
      type: 'tool-result',
      toolName: 'page_call',
      output: { type: 'text', value: JSON.stringify({ status: 'ok', data: { results: ['Marathon'] } }) },
    })
  })

  it("a model error becomes the chat's error line, not an unhandled rejection", async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error('HTTP 500 from the model')
      },
    })
    const { browser, conversation, t } = await setup({
      provider: aiSdkProvider({ model, maxRetries: 0 }),
    })
    await browser.say(conversation, 'hello')
    await t.server.agent.idle(conversation)
    const log = await browser.messages(conversation)
    expect(log.at(-1)).toMatchObject({
      role: 'assistant',
      text: 'The agent could not reach its model (ai-sdk).',
    })
    expect(t.logs.some((l) => l.includes('HTTP 500 from the model'))).toBe(true)
  })
})
