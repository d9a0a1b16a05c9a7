import { PAGE_DESCRIBE_TOOL, pageCallTool, wrapUntrusted } from '@toolmark/protocol'
import { afterEach, describe, expect, it } from 'vitest'
import { challengesTools, demoState } from '../../../../../offline-agent/src/__tests__/demo-tools.ts'
import { FakePage } from '../../../__tests__/support/fake-page.ts'
import { testServer } from '../../../__tests__/support/test-server.ts'
import type { AgentMessage, LlmTool, ProviderEvent, ProviderRequest } from '../../types.ts'
import { AnthropicProvider, anthropicMessages } from '../anthropic.ts'
import { markedResult, wireHistory } from '../history.ts'
import { OpenAiProvider, openAiMessages } from '../openai.ts'
import { fixtureServer, type Reply } from './fixture-server.ts'

const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function fixtures(replies: Reply[]) {
  const f = await fixtureServer(replies)
  cleanup.push(f.close)
  return f
}

async function collect(events: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = []
  for await (const e of events) out.push(e)
  return out
}

const manifest = challengesTools(demoState()).map(({ name, llmName, description, hints }) => ({
  name,
  llmName,
  description,
  hints,
}))
const tools: LlmTool[] = [pageCallTool(manifest), PAGE_DESCRIBE_TOOL as LlmTool]

const wrapped = JSON.stringify(wrapUntrusted({ status: 'ok', data: { id: 'c-1' } }))
const history: AgentMessage[] = [
  { role: 'user', text: 'create Robotics' },
  {
    role: 'assistant',
    text: '',
    toolCalls: [
      { id: 'toolu_1', name: 'page_call', input: { tool: 'challenges.create', input: { name: 'Robotics' } } },
    ],
  },
  {
    role: 'tool',
    toolCallId: 'toolu_1',
    name: 'page_call',
    content:
      '{"status":"needs_confirmation","confirmId":"c-1","summary":"Create challenge \\"Robotics\\"","changes":[]}',
  },
  { role: 'assistant', text: 'A confirmation is waiting in the page.', toolCalls: [] },
  { role: 'tool', toolCallId: 'toolu_1', name: 'page_call', content: wrapped, confirmId: 'c-1' },
]
const confirmNote = markedResult(history[4] as Extract<AgentMessage, { role: 'tool' }>)

/** A failed reply the SDKs retry at once (`retry-after-ms` is the SDKs' own hint). */
const retryable = (status: number, body: string): Reply => ({
  status,
  body,
  headers: { 'retry-after-ms': '1' },
})

describe('wireHistory', () => {
  it('pairs results with their calls, marks confirmation outcomes, and fills in a missing result', () => {
    const dangling: AgentMessage[] = [
      { role: 'user', text: 'go' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'a', name: 'page_describe', input: { tool: 'x' } }] },
      { role: 'user', text: 'again' },
    ]
    expect(wireHistory(dangling, true)[2]).toMatchObject({
      role: 'tool',
      toolCallId: 'a',
      content: expect.stringContaining('No result'),
    })
    expect(wireHistory(history, true).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'note',
    ])
    expect(wireHistory(history, false).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'note',
      'assistant',
      'note',
    ])
    expect(confirmNote).toContain('Outcome of the confirmation c-1 for tool call toolu_1')
    expect(confirmNote.endsWith(wrapped)).toBe(true)
  })
})

describe('Anthropic Messages API adapter', () => {
  const request = (over: Partial<ProviderRequest> = {}): ProviderRequest => ({
    system: 'sys',
    messages: [{ role: 'user', text: 'find chess' }],
    tools,
    ...over,
  })

  it('streams text and assembles a tool_use from input_json_delta parts', async () => {
    const f = await fixtures([{ fixture: 'anthropic-tool-use.sse' }])
    const provider = new AnthropicProvider({ apiKey: 'sk-test', baseUrl: f.url, model: 'claude-test' })
    expect(await collect(provider.stream(request()))).toEqual([
      { type: 'text', delta: 'Let me search' },
      { type: 'text', delta: ' the challenges.' },
      {
        type: 'tool_call',
        call: {
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          name: 'page_call',
          input: { tool: 'challenges.search', input: { query: 'chess' } },
        },
      },
    ])
    const [sent] = f.requests
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/messages' })
    // What the official SDK sends: the key as a bearer token and its pinned API version.
    expect(sent!.headers.authorization).toBe('Bearer sk-test')
    expect(sent!.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(sent!.body).toMatchObject({ model: 'claude-test', system: 'sys', stream: true, max_tokens: 1024 })
    // The two tool definitions go out byte for byte.
    expect(sent!.raw).toContain(`"tools":${JSON.stringify(tools)}`)
  })

  it('maps tool results, and sends a confirmation outcome as marked user text', () => {
    expect(anthropicMessages(request({ messages: history }))).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'create Robotics' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'page_call',
            input: { tool: 'challenges.create', input: { name: 'Robotics' } },
          },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: history[2]!.role === 'tool' ? history[2]!.content : '',
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'A confirmation is waiting in the page.' }] },
      { role: 'user', content: [{ type: 'text', text: confirmNote }] },
    ])
  })

  it('sends no tools and no tool blocks in a follow-up turn', async () => {
    const f = await fixtures([{ fixture: 'anthropic-text.sse' }])
    const provider = new AnthropicProvider({ apiKey: 'k', baseUrl: f.url, model: 'm' })
    expect(await collect(provider.stream(request({ messages: history, tools: [] })))).toEqual([
      { type: 'text', delta: 'I found one challenge: ' },
      { type: 'text', delta: 'Chess Openings.' },
    ])
    expect(f.requests[0]!.body.tools).toBeUndefined()
    expect(f.requests[0]!.raw).not.toMatch(/tool_use|tool_result/)
  })

  it('throws on an HTTP error and on an error event', async () => {
    const f = await fixtures([{ status: 401, body: '{"type":"error"}' }, { fixture: 'anthropic-error.sse' }])
    const provider = new AnthropicProvider({ apiKey: 'bad', baseUrl: f.url, model: 'm' })
    await expect(collect(provider.stream(request()))).rejects.toThrow('anthropic: HTTP 401')
    await expect(collect(provider.stream(request()))).rejects.toThrow(
      'anthropic: overloaded_error: Overloaded',
    )
  })
})

describe('OpenAI-compatible Chat Completions adapter', () => {
  const request = (over: Partial<ProviderRequest> = {}): ProviderRequest => ({
    system: 'sys',
    messages: [{ role: 'user', text: 'find chess' }],
    tools,
    ...over,
  })

  it('streams tool calls assembled per index from argument fragments', async () => {
    const f = await fixtures([{ fixture: 'openai-tool-calls.sse' }])
    const provider = new OpenAiProvider({ apiKey: 'sk-o', baseUrl: `${f.url}/v1`, model: 'gpt-test' })
    expect(await collect(provider.stream(request()))).toEqual([
      {
        type: 'tool_call',
        call: {
          id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
          name: 'page_describe',
          input: { tool: 'challenges.search' },
        },
      },
      {
        type: 'tool_call',
        call: {
          id: 'call_w1kVg9Oq7xNvvjS1gT0hxQ3E',
          name: 'page_call',
          input: { tool: 'challenges.search', input: { query: 'chess' } },
        },
      },
    ])
    const [sent] = f.requests
    expect(sent).toMatchObject({ path: '/v1/chat/completions' })
    expect(sent!.headers.authorization).toBe('Bearer sk-o')
    expect(sent!.body).toMatchObject({ model: 'gpt-test', stream: true })
    expect(sent!.body.tools).toEqual(
      tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.input_schema },
      })),
    )
  })

  it('streams text, maps the history, and sends no tools in a follow-up turn', async () => {
    const f = await fixtures([{ fixture: 'openai-text.sse' }])
    const provider = new OpenAiProvider({ apiKey: 'k', baseUrl: `${f.url}/v1/`, model: 'm' })
    expect(await collect(provider.stream(request({ messages: history, tools: [] })))).toEqual([
      { type: 'text', delta: 'I found one challenge: ' },
      { type: 'text', delta: 'Chess Openings.' },
    ])
    expect(f.requests[0]!.body.tools).toBeUndefined()
    expect(openAiMessages(request({ messages: history }))).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'create Robotics' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'toolu_1',
            type: 'function',
            function: {
              name: 'page_call',
              arguments: '{"tool":"challenges.create","input":{"name":"Robotics"}}',
            },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'toolu_1',
        content: history[2]!.role === 'tool' ? history[2]!.content : '',
      },
      { role: 'assistant', content: 'A confirmation is waiting in the page.' },
      { role: 'user', content: confirmNote },
    ])
  })

  it('throws on an error chunk and on an HTTP error', async () => {
    const f = await fixtures([{ fixture: 'openai-error.sse' }, { status: 429, body: 'slow down' }])
    const provider = new OpenAiProvider({ apiKey: 'k', baseUrl: f.url, model: 'm', maxRetries: 0 })
    await expect(collect(provider.stream(request()))).rejects.toThrow('openai: The server had an error')
    await expect(collect(provider.stream(request()))).rejects.toThrow('openai: HTTP 429 slow down')
  })
})

describe('retries (the SDKs)', () => {
  it.each([
    ['anthropic', 'anthropic-text.sse'],
    ['openai', 'openai-text.sse'],
  ] as const)('%s: a 429 and a 503 are retried, then the answer streams', async (name, file) => {
    const f = await fixtures([retryable(429, 'slow down'), retryable(503, 'busy'), { fixture: file }])
    const provider =
      name === 'anthropic'
        ? new AnthropicProvider({ apiKey: 'k', baseUrl: f.url, model: 'm' })
        : new OpenAiProvider({ apiKey: 'k', baseUrl: f.url, model: 'm' })
    expect(
      await collect(provider.stream({ system: 's', messages: [{ role: 'user', text: 'hi' }], tools })),
    ).toEqual([
      { type: 'text', delta: 'I found one challenge: ' },
      { type: 'text', delta: 'Chess Openings.' },
    ])
    expect(f.requests).toHaveLength(3)
    expect(new Set(f.requests.map((r) => r.raw)).size).toBe(1) // the same request, byte for byte
  })

  it.each(['anthropic', 'openai'] as const)(
    '%s: an abort stops the request and is not retried',
    async (name) => {
      const f = await fixtures([retryable(503, 'busy'), retryable(503, 'busy'), retryable(503, 'busy')])
      const provider =
        name === 'anthropic'
          ? new AnthropicProvider({ apiKey: 'k', baseUrl: f.url, model: 'm' })
          : new OpenAiProvider({ apiKey: 'k', baseUrl: f.url, model: 'm' })
      const controller = new AbortController()
      controller.abort()
      await expect(
        collect(provider.stream({ system: 's', messages: [], tools: [], signal: controller.signal })),
      ).rejects.toThrow(/abort/i)
      expect(f.requests).toHaveLength(0)
    },
  )
})

describe('a whole turn through the server with a real-provider adapter', () => {
  it.each([
    ['anthropic', ['anthropic-tool-use.sse', 'anthropic-text.sse']],
    ['openai', ['openai-tool-calls.sse', 'openai-text.sse']],
  ] as const)('%s: the page gets the call and the chat gets the streamed answer', async (name, files) => {
    const f = await fixtures(files.map((file) => ({ fixture: file })))
    const provider =
      name === 'anthropic'
        ? new AnthropicProvider({ apiKey: 'k', baseUrl: f.url, model: 'claude-sonnet-4-5' })
        : new OpenAiProvider({ apiKey: 'k', baseUrl: `${f.url}/v1`, model: 'gpt-4o-mini' })
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    const page = await FakePage.open(t.server.url, browser, conversation, challengesTools(demoState()))
    await browser.say(conversation, 'find chess')
    await t.server.agent.idle(conversation)
    expect(page.calls).toEqual([{ tool: 'challenges.search', input: { query: 'chess' }, rev: 1 }])
    const log = await browser.messages(conversation)
    expect(log.at(-1)).toMatchObject({ role: 'assistant', text: 'I found one challenge: Chess Openings.' })
    expect(f.requests).toHaveLength(2)
    expect(f.requests[1]!.raw).toContain('Chess Openings')
  })
})

describe('a provider failure during a turn', () => {
  it('ends the turn with a short notice and logs the error, masked', async () => {
    // The SDK retries a 500 twice before the turn gives up.
    const f = await fixtures([1, 2, 3].map(() => retryable(500, 'echo: card 4242 4242 4242 4242')))
    const provider = new AnthropicProvider({ apiKey: 'k', baseUrl: f.url, model: 'claude-sonnet-4-5' })
    const t = await testServer({ provider })
    const browser = await t.browser()
    const conversation = await browser.createConversation()
    await browser.say(conversation, 'hello')
    await t.server.agent.idle(conversation)
    expect((await browser.messages(conversation)).at(-1)).toEqual({
      id: expect.any(String),
      role: 'assistant',
      text: 'The agent could not reach its model (anthropic).',
      at: expect.any(Number),
    })
    expect(t.logs.join('\n')).toContain(
      '[agent] provider anthropic failed: Error: anthropic: HTTP 500 echo: card **** 4242',
    )
    expect(t.server.agent.busy(conversation)).toBe(false)
    expect(f.requests).toHaveLength(3)
  })
})
