import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { type BaseEvent, HttpAgent, type Interrupt, type RunAgentResult } from '@ag-ui/client'
import { bridge } from '@toolmark/bridge'
import { websocketTransport } from '@toolmark/bridge/websocket'
import type { Toolmark } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { OfflineProvider } from '@toolmark/offline-agent'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { challengesRegistry } from '../../__tests__/support/challenges-page.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { AG_UI_CAPABILITIES, agUiHandler } from '../../ag-ui.ts'
import type { Provider } from '../../agent/types.ts'
import { serve } from '../../node.ts'
import { createToolmarkServer } from '../../server.ts'
import { type ManualClock, manualClock } from '../../shared/clock.ts'
import { createMemoryStore } from '../../store/memory.ts'

/*
 * The AG-UI endpoint against the real parts: `HttpAgent` from `@ag-ui/client` (its event verification runs on
 * every run), a Toolmark server with the offline agent, and a page made of the real core registry, the plain v1
 * bridge and its WebSocket transport. The chat front end runs in that page: it answers an interrupt there
 * (`tm.confirmPending`), then resumes.
 */

// Node has no document: act as the browser page here.
beforeAll(() => environment.setIsServer(false))
afterAll(() => environment.setIsServer(undefined))

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

const USER = 'user-1'
const AG_UI_PATH = '/api/ag-ui'

/** A `ws` WebSocket that carries the user header, as the app's own session would. */
class UserWebSocket extends WebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url, protocols, { headers: { 'x-user-id': USER } })
  }
}

interface Setup {
  agent: HttpAgent
  names: string[]
  tm: Toolmark
  clock: ManualClock
  conversation: string
  url: string
  /** Every event of every run, in order. */
  events: BaseEvent[]
  run(params?: Parameters<HttpAgent['runAgent']>[0]): Promise<RunAgentResult>
}

async function setup(
  options: { provider?: Provider; pageAnswerWaitMs?: number; register?: (tm: Toolmark) => void } = {},
): Promise<Setup> {
  const clock = manualClock(Date.now())
  const toolmark = createToolmarkServer({
    store: createMemoryStore(clock.now),
    provider: options.provider ?? new OfflineProvider(),
    authenticate: (request) => request.headers.get('x-user-id') ?? undefined,
    clock,
    log: () => {},
  })
  const agUi = agUiHandler(toolmark, {
    now: clock.now,
    log: () => {},
    ...(options.pageAnswerWaitMs === undefined ? {} : { pageAnswerWaitMs: options.pageAnswerWaitMs }),
  })
  const node = await serve(
    { ...toolmark, fetch: (r) => (new URL(r.url).pathname === AG_UI_PATH ? agUi(r) : toolmark.fetch(r)) },
    { port: 0, log: () => {} },
  )
  cleanup.push(() => node.close())
  const created = await fetch(`${node.url}/api/conversations`, {
    method: 'POST',
    headers: { 'x-user-id': USER },
  })
  const conversation = ((await created.json()) as { id: string }).id

  const names = ['Chess Openings', 'Marathon Training']
  const tm = challengesRegistry(names)
  options.register?.(tm)
  const toolCount = tm.manifest().tools.length
  const clientId = randomUUID()
  const bound = new Promise<void>((resolve) => {
    const off = toolmark.relay.on('rebound', (e) => {
      if (e.to === clientId) {
        off()
        resolve()
      }
    })
  })
  const transport = websocketTransport({
    url: `${node.url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${conversation}`,
    WebSocket: UserWebSocket,
    terminalCloseCodes: [4401, 4403],
  })
  const dispose = tm.use(bridge({ transport, clientId }))
  cleanup.push(() => dispose?.())
  await bound
  // The page's manifest lists its tools once they are registered (the first one may be empty).
  await waitFor(async () => ((await toolmark.relay.page(conversation))?.tools.length ?? 0) === toolCount)

  const url = `${node.url}${AG_UI_PATH}`
  const agent = new HttpAgent({ url, threadId: conversation, headers: { 'x-user-id': USER } })
  const events: BaseEvent[] = []
  const run: Setup['run'] = (params) =>
    agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) })
  return { agent, names, tm, clock, conversation, url, events, run }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** Adds a user message to the agent's history (what a chat front end does before a run). */
function say(s: Setup, text: string): void {
  s.agent.addMessage({ id: randomUUID(), role: 'user', content: text })
}

const lastText = (s: Setup): string | undefined => {
  const last = s.agent.messages.filter((m) => m.role === 'assistant' && typeof m.content === 'string').at(-1)
  return last?.content as string | undefined
}

const typesOf = (events: BaseEvent[]) => events.map((e) => e.type)

type Payload = { approved: true; editedArgs?: Record<string, unknown> } | { approved: false; reason?: string }

/**
 * What the chat front end in the page does with the user's answer to an interrupt: applies it in the page
 * (`tm.confirmPending`, where the seed's rules hold), then resumes the run with the same answer.
 */
async function answer(s: Setup, interrupt: Interrupt, payload: Payload) {
  const outcome = await s.tm.confirmPending(
    interrupt.id,
    payload.approved
      ? { approved: true, ...(payload.editedArgs ? { input: payload.editedArgs } : {}) }
      : { approved: false, ...(payload.reason === undefined ? {} : { reason: payload.reason }) },
  )
  s.events.length = 0
  await s.run({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload }] })
  return outcome
}

/** Asks for a consequential create and returns the interrupt the run ended with. */
async function interrupted(s: Setup, name = 'Robotics'): Promise<Interrupt> {
  say(s, `create a challenge called ${name}`)
  await s.run()
  expect(s.agent.pendingInterrupts).toHaveLength(1)
  return s.agent.pendingInterrupts[0]!
}

describe('AG-UI endpoint with HttpAgent and a real page', () => {
  it('runs a read-only page tool: text, tool call and result stream as AG-UI events', async () => {
    const s = await setup()
    say(s, 'Search for chess')
    const result = await s.run()
    // The agent describes the tool first, then calls it: two tool calls, each with its result.
    expect(typesOf(s.events)).toEqual([
      'RUN_STARTED',
      ...['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT'],
      ...['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT'],
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ])
    expect(s.events[1]).toMatchObject({ toolCallName: 'page_describe' })
    expect(JSON.parse((s.events[2] as unknown as { delta: string }).delta)).toEqual({
      tool: 'challenges.search',
    })
    expect(s.events[5]).toMatchObject({ toolCallName: 'challenges.search' })
    expect(JSON.parse((s.events[6] as unknown as { delta: string }).delta)).toEqual({ query: 'chess' })
    expect(JSON.parse((s.events[8] as unknown as { content: string }).content)).toEqual({
      status: 'ok',
      data: { results: [{ name: 'Chess Openings' }] },
    })
    expect(lastText(s)).toBe('I found 1 challenge: Chess Openings.')
    expect(s.agent.pendingInterrupts).toEqual([])
    expect(result.newMessages.length).toBeGreaterThanOrEqual(2)
  })

  it('interrupts a consequential call; approve runs it once in the page, then the follow-up arrives', async () => {
    const s = await setup()
    const interrupt = await interrupted(s)
    expect(interrupt).toMatchObject({
      reason: 'tool_call',
      message: 'Create challenge "Robotics"',
      metadata: { tool: 'challenges.create' },
      responseSchema: { required: ['approved'] },
    })
    const [pending] = s.tm.pendingConfirmations()
    expect(interrupt.id).toBe(pending!.confirmId)
    const call = s.events.find(
      (e) =>
        e.type === 'TOOL_CALL_START' &&
        (e as unknown as { toolCallName: string }).toolCallName === 'challenges.create',
    ) as unknown as { toolCallId: string }
    expect(interrupt.toolCallId).toBe(call.toolCallId)
    // expiresAt is the confirmation's own deadline (the server's 660 000 ms after the page asked).
    expect(Date.parse(interrupt.expiresAt!)).toBeGreaterThan(s.clock.now() + 600_000)
    // No result for the call yet: it arrives with the answer.
    expect(
      s.events.some(
        (e) =>
          e.type === 'TOOL_CALL_RESULT' &&
          (e as unknown as { toolCallId: string }).toolCallId === call.toolCallId,
      ),
    ).toBe(false)
    expect(s.names).not.toContain('Robotics')

    // The front end applies the approval in the page, then resumes: the outcome and the follow-up stream.
    expect(await answer(s, interrupt, { approved: true })).toEqual({
      status: 'ok',
      data: { name: 'Robotics' },
    })
    expect(s.names.filter((n) => n === 'Robotics')).toHaveLength(1)
    expect(s.tm.pendingConfirmations()).toEqual([])
    expect(typesOf(s.events).filter((t) => t === 'TOOL_CALL_RESULT')).toHaveLength(1)
    const result = s.events.find((e) => e.type === 'TOOL_CALL_RESULT') as unknown as {
      toolCallId: string
      content: string
    }
    expect(result.toolCallId).toBe(call.toolCallId)
    expect(JSON.parse(result.content)).toEqual({ status: 'ok', data: { name: 'Robotics' } })
    expect(lastText(s)).toBe('Created "Robotics".')
    expect(s.agent.pendingInterrupts).toEqual([])
    expect(s.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
  })

  it('reject: nothing runs and the model is told', async () => {
    const s = await setup()
    const interrupt = await interrupted(s)
    expect(await answer(s, interrupt, { approved: false, reason: 'Not now' })).toEqual({
      status: 'cancelled',
      by: 'operator',
    })
    expect(s.names).not.toContain('Robotics')
    const result = s.events.find((e) => e.type === 'TOOL_CALL_RESULT') as unknown as { content: string }
    expect(JSON.parse(result.content)).toEqual({ status: 'cancelled', by: 'operator' })
    expect(lastText(s)).toMatch(/cancel|reject/i)
    expect(s.tm.pendingConfirmations()).toEqual([])
  })

  it('approve with edited input: an edit that fails the tool schema is refused with the seed code invalid, by the page and by the resume, and stays open', async () => {
    const s = await setup()
    const interrupt = await interrupted(s)
    // The page validates the edit again: invalid, and the confirmation stays open.
    const refused = await answer(s, interrupt, { approved: true, editedArgs: { name: '' } })
    expect(refused).toMatchObject({ status: 'invalid', issues: [{ path: 'name' }] })
    // The resume carrying that edit is refused by the server itself, against the tool's schema, before anything else.
    const error = s.events.at(-1) as unknown as { type: string; code: string; message: string }
    expect(error).toMatchObject({ type: 'RUN_ERROR', code: 'invalid' })
    expect(error.message).toContain('name')
    expect(s.names).not.toContain('')
    expect(s.tm.pendingConfirmations()).toHaveLength(1)

    // Fixed: the page runs the edited input once, and the resume streams that outcome.
    const applied = await answer(s, interrupt, { approved: true, editedArgs: { name: 'Glider' } })
    expect(applied).toEqual({ status: 'ok', data: { name: 'Glider' } })
    const result = s.events.find((e) => e.type === 'TOOL_CALL_RESULT') as unknown as { content: string }
    expect(JSON.parse(result.content)).toEqual({ status: 'ok', data: { name: 'Glider' } })
    expect(s.names.filter((n) => n === 'Glider')).toHaveLength(1)
    expect(s.names).not.toContain('Robotics')
  })

  it('refuses an invalid edit even when the front end did not apply it in the page: nothing is waited for, nothing runs', async () => {
    const s = await setup({ pageAnswerWaitMs: 60_000 })
    const interrupt = await interrupted(s)
    const started = Date.now()
    await s.run({
      resume: [
        {
          interruptId: interrupt.id,
          status: 'resolved',
          payload: { approved: true, editedArgs: { title: 'x' } },
        },
      ],
    })
    expect(s.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'invalid' })
    expect((s.events.at(-1) as unknown as { message: string }).message).toMatch(/name/)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(s.names).toEqual(['Chess Openings', 'Marathon Training'])
    expect(s.tm.pendingConfirmations()).toHaveLength(1)
  })

  it("an edit keeps '[redacted]' at a sensitive path: the server leaves that value to the page, which restores it", async () => {
    const card = '4242424242424242'
    const paid: unknown[] = []
    const provider = new ScriptedProvider([
      () => [toolCall('p1', 'page_call', { tool: 'billing.pay', input: { card, amount: 5 } })],
      () => [{ type: 'text', delta: 'Waiting for your approval.' }],
      () => [{ type: 'text', delta: 'Paid.' }],
    ])
    const s = await setup({
      provider,
      register: (tm) =>
        tm.register({
          name: 'billing.pay',
          description: 'Pay an amount with a card.',
          jsonSchema: {
            type: 'object',
            properties: { card: { type: 'string', minLength: 16 }, amount: { type: 'number' } },
            required: ['card', 'amount'],
            additionalProperties: false,
          },
          sensitivePaths: ['card'],
          hints: { consequential: true },
          run: (input) => {
            paid.push(input)
            return { status: 'ok', data: { paid: (input as { amount: number }).amount } }
          },
        }),
    })
    say(s, 'pay it')
    await s.run()
    const [interrupt] = s.agent.pendingInterrupts
    // The front end only ever saw the masked card.
    const args = s.events.find((e) => e.type === 'TOOL_CALL_ARGS') as unknown as { delta: string }
    expect(JSON.parse(args.delta)).toEqual({ card: '[redacted]', amount: 5 })
    // An edit that fails elsewhere is still refused by the server (and by the page).
    expect(
      await answer(s, interrupt!, { approved: true, editedArgs: { card: '[redacted]', amount: 'x' } }),
    ).toMatchObject({ status: 'invalid' })
    expect(s.events.at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      code: 'invalid',
      message: 'The edited input is invalid: amount: Expected number',
    })
    // '[redacted]' itself is too short for a card: the page restores the real card and runs with it.
    expect(
      await answer(s, interrupt!, { approved: true, editedArgs: { card: '[redacted]', amount: 7 } }),
    ).toEqual({
      status: 'ok',
      data: { paid: 7 },
    })
    expect(s.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
    expect(paid).toEqual([{ card, amount: 7 }])
  })

  it("never runs a page's regular expression on the server: an edit that fails only a pattern is the page's to refuse", async () => {
    const provider = new ScriptedProvider([
      () => [toolCall('t1', 'page_call', { tool: 'teams.rename', input: { code: 'AB' } })],
      () => [{ type: 'text', delta: 'Waiting for your approval.' }],
    ])
    const s = await setup({
      provider,
      pageAnswerWaitMs: 100,
      register: (tm) =>
        tm.register({
          name: 'teams.rename',
          description: 'Rename a team code.',
          jsonSchema: {
            type: 'object',
            properties: { code: { type: 'string', pattern: '^[A-Z]+$' } },
            required: ['code'],
          },
          hints: { consequential: true },
          run: () => ({ status: 'ok', data: {} }),
        }),
    })
    say(s, 'rename it')
    await s.run()
    const [interrupt] = s.agent.pendingInterrupts
    // The page refuses it (invalid, still open); the server, which did not check the pattern, finds no answer.
    expect(await answer(s, interrupt!, { approved: true, editedArgs: { code: 'ab' } })).toMatchObject({
      status: 'invalid',
    })
    expect(s.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'confirmation_unanswered' })
    expect(s.tm.pendingConfirmations()).toHaveLength(1)
  })

  it('leaves an edit to the page when its schema refers to itself (a check that could take exponential time)', async () => {
    const provider = new ScriptedProvider([
      () => [toolCall('t1', 'page_call', { tool: 'tree.save', input: { nodes: [] } })],
      () => [{ type: 'text', delta: 'Waiting for your approval.' }],
    ])
    const s = await setup({
      provider,
      pageAnswerWaitMs: 100,
      register: (tm) =>
        tm.register({
          name: 'tree.save',
          description: 'Save a tree.',
          jsonSchema: {
            type: 'object',
            properties: { nodes: { $ref: '#/$defs/node' } },
            required: ['nodes'],
            $defs: { node: { type: 'array', items: { $ref: '#/$defs/node' } } },
          },
          hints: { consequential: true },
          run: () => ({ status: 'ok', data: {} }),
        }),
    })
    say(s, 'save it')
    await s.run()
    const [interrupt] = s.agent.pendingInterrupts
    // The page refuses the edit (invalid, still open); the server did not check it, so it finds no answer.
    expect(await answer(s, interrupt!, { approved: true, editedArgs: { nodes: [[['x']]] } })).toMatchObject({
      status: 'invalid',
    })
    expect(s.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'confirmation_unanswered' })
  })

  it('refuses a resume past the interrupt expiresAt, and runs nothing', async () => {
    const s = await setup()
    const interrupt = await interrupted(s)
    s.clock.advance(661_000) // the server's deadline for the approval has passed
    // A front end that resumes anyway (its page's own expiry, 10 minutes, would refuse the approval too).
    await s.run({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }] })
    expect(s.events.at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      code: 'confirmation_expired',
      message: 'The confirmation expired or was already used',
    })
    expect(s.names).not.toContain('Robotics')
  })

  it('replaying the same resume is safe: the stored outcome again, nothing runs twice', async () => {
    const s = await setup()
    const interrupt = await interrupted(s)
    expect(await s.tm.confirmPending(interrupt.id, { approved: true })).toMatchObject({ status: 'ok' })
    const resume = [{ interruptId: interrupt.id, status: 'resolved' as const, payload: { approved: true } }]
    const body = (runId: string) =>
      JSON.stringify({ threadId: s.conversation, runId, messages: [], tools: [], context: [], resume })
    const post = (runId: string) =>
      fetch(s.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-user-id': USER },
        body: body(runId),
      }).then((r) => r.text())
    const first = await post('r1')
    const second = await post('r2')
    expect(s.names.filter((n) => n === 'Robotics')).toHaveLength(1)
    const results = (sse: string) =>
      sse
        .split('\n\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as { type: string; content?: string })
    const tool = (sse: string) => results(sse).find((e) => e.type === 'TOOL_CALL_RESULT')?.content
    expect(tool(first)).toBe(JSON.stringify({ status: 'ok', data: { name: 'Robotics' } }))
    expect(tool(second)).toBe(tool(first))
    expect(results(second).at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
  })

  it('refuses a resume that answers one interrupt twice, or more than 100, before it does anything', async () => {
    const s = await setup()
    const interrupt = await interrupted(s)
    const entry = { interruptId: interrupt.id, status: 'cancelled' }
    const post = (resume: unknown[]) =>
      fetch(s.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-user-id': USER },
        body: JSON.stringify({
          threadId: s.conversation,
          runId: 'r1',
          messages: [],
          tools: [],
          context: [],
          resume,
        }),
      })
    const twice = await post([entry, entry])
    expect(twice.status).toBe(400)
    expect(await twice.json()).toMatchObject({
      error: { message: 'each interrupt may be answered once per resume' },
    })
    const many = Array.from({ length: 101 }, (_, i) => ({ interruptId: `i${i}`, status: 'cancelled' }))
    expect((await post(many)).status).toBe(400)
    expect(s.agent.pendingInterrupts).toHaveLength(1)
  })

  it('pending interrupts block other input', async () => {
    const s = await setup()
    await interrupted(s)
    // The client refuses it itself; a raw request gets the server's answer.
    const response = await fetch(s.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user-id': USER },
      body: JSON.stringify({
        threadId: s.conversation,
        runId: 'r',
        messages: [{ id: 'm', role: 'user', content: 'Search for chess' }],
      }),
    })
    expect(await response.text()).toContain('"code":"interrupt_pending"')
  })

  it("the page's answer may land while the resume waits: each event once", async () => {
    const s = await setup()
    const interrupt = await interrupted(s)
    // The front end resumes without waiting for the page's outcome (the page's `confirmed` lands after the resume).
    const applied = s.tm.confirmPending(interrupt.id, { approved: true })
    s.events.length = 0
    await s.run({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }] })
    expect(await applied).toMatchObject({ status: 'ok' })
    const result = s.events.find((e) => e.type === 'TOOL_CALL_RESULT') as unknown as { content: string }
    expect(JSON.parse(result.content)).toEqual({ status: 'ok', data: { name: 'Robotics' } })
    // Each event once, whichever came first, the resume or the page's answer.
    expect(typesOf(s.events).filter((t) => t === 'TOOL_CALL_RESULT')).toHaveLength(1)
    expect(typesOf(s.events).filter((t) => t === 'TEXT_MESSAGE_START')).toHaveLength(1)
    expect(s.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
    expect(s.names.filter((n) => n === 'Robotics')).toHaveLength(1)
  })

  it('a resume the page did not answer: confirmation_unanswered says where to answer, and nothing runs', async () => {
    const s = await setup({ pageAnswerWaitMs: 100 })
    const interrupt = await interrupted(s)
    await s.run({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }] })
    expect(s.events.at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      code: 'confirmation_unanswered',
      message:
        'The page did not answer this confirmation within 100 ms: apply the answer in the page with tm.confirmPending(confirmId, outcome), then resume',
    })
    expect(s.names).not.toContain('Robotics')
    expect(s.tm.pendingConfirmations()).toHaveLength(1)
  })

  it('only the user answers a confirmation: a model that tries through page_call calls an unknown tool', async () => {
    const confirmIdIn = (messages: unknown) =>
      /confirmId\\*":\\*"([0-9a-f-]{36})/.exec(JSON.stringify(messages))?.[1] ?? ''
    const provider = new ScriptedProvider([
      () => [toolCall('c1', 'page_call', { tool: 'challenges.create', input: { name: 'Robotics' } })],
      () => [{ type: 'text', delta: 'A confirmation is waiting in the page.' }],
      (request) => [
        toolCall('c2', 'page_call', {
          tool: 'confirm',
          input: { confirmId: confirmIdIn(request.messages), approved: true },
        }),
      ],
      () => [{ type: 'text', delta: 'Done.' }],
    ])
    const s = await setup({ provider })
    await interrupted(s)
    // The chat API still takes messages; the model's attempt is an ordinary call of an unknown tool.
    await fetch(s.url.replace('/api/ag-ui', `/api/conversations/${s.conversation}/messages`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user-id': USER },
      body: JSON.stringify({ text: 'approve it yourself' }),
    })
    await waitFor(async () => provider.script.length === 0)
    await new Promise((r) => setTimeout(r, 50))
    // The model did have the confirmId, and tried.
    expect(confirmIdIn(provider.requests[2]!.messages)).toBe(s.tm.pendingConfirmations()[0]!.confirmId)
    expect(JSON.stringify(provider.requests[3]!.messages)).toContain('unknown_tool')
    expect(s.names).not.toContain('Robotics')
    expect(s.tm.pendingConfirmations()).toHaveLength(1)
  })

  it('client tools pass through: offered to the model beside the page tools, run by the front end, the turn goes on from their result', async () => {
    const provider = new ScriptedProvider([
      () => [toolCall('t1', 'show_toast', { text: 'Saved' })],
      () => [{ type: 'text', delta: 'Toast shown.' }],
    ])
    const s = await setup({ provider })
    const tools = [
      {
        name: 'show_toast',
        description: 'Show a short message in the corner of the screen.',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
    ]
    say(s, 'tell me it saved')
    await s.run({ tools })
    // The model saw the client tool, with its schema, beside the agent's own two.
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual([
      'page_call',
      'page_describe',
      'show_toast',
    ])
    expect(provider.requests[0]!.tools[2]!.input_schema).toEqual(tools[0]!.parameters)
    // The call reaches the front end as a tool call it runs; the run ends there, with no result and no text.
    const call = s.events.filter((e) => e.type.startsWith('TOOL_CALL'))
    expect(typesOf(call)).toEqual(['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END'])
    expect(call[0]).toMatchObject({ toolCallName: 'show_toast', toolCallId: 't1' })
    expect(JSON.parse((call[1] as unknown as { delta: string }).delta)).toEqual({ text: 'Saved' })
    expect(s.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } })
    expect(s.agent.pendingInterrupts).toHaveLength(0)

    // The front end ran it and sends its result: the model gets the call and its result, and answers.
    s.agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: 't1', content: '{"shown":true}' })
    s.events.length = 0
    await s.run({ tools })
    expect(provider.requests[1]!.messages.slice(-2)).toMatchObject([
      { role: 'assistant', toolCalls: [{ id: 't1', name: 'show_toast' }] },
      { role: 'tool', toolCallId: 't1', content: '{"shown":true}' },
    ])
    // The result the front end sent is not echoed back; the reply is.
    expect(typesOf(s.events)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ])
    expect(lastText(s)).toBe('Toast shown.')

    // The same result again answers no open call: refused, and no turn runs.
    s.agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: 't1', content: '{"shown":true}' })
    s.events.length = 0
    await s.run({ tools }).catch(() => {})
    expect(s.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'invalid_tool_result' })
    expect(provider.requests).toHaveLength(2)
  })

  it("a client tool may not take the agent's own tool names", async () => {
    const s = await setup()
    const response = await fetch(s.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user-id': USER },
      body: JSON.stringify({
        threadId: s.conversation,
        runId: 'r',
        messages: [{ id: 'm', role: 'user', content: 'hi' }],
        tools: [{ name: 'page_call', description: 'mine', parameters: { type: 'object' } }],
      }),
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "page_call is the agent's own tool: a client tool cannot take its name",
    )
  })

  it('keeps the chat API rules: another user gets 404, a foreign origin 403; GET declares the capabilities', async () => {
    const s = await setup()
    const input = JSON.stringify({ threadId: s.conversation, runId: 'r', messages: [] })
    const post = (headers: Record<string, string>) =>
      fetch(s.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: input,
      })
    expect((await post({ 'x-user-id': 'someone-else' })).status).toBe(404)
    expect((await post({})).status).toBe(401)
    expect((await post({ 'x-user-id': USER, origin: 'https://evil.example' })).status).toBe(403)
    const capabilities = await (await fetch(s.url)).json()
    expect(capabilities).toEqual(AG_UI_CAPABILITIES)
    expect(capabilities.humanInTheLoop).toEqual({
      supported: true,
      approvals: true,
      interrupts: true,
      approveWithEdits: true,
    })
  })
})

describe('docs/guides/ag-ui.md', () => {
  it('shows the example files that tsc checks (server, page, chat front end), each under 30 lines', () => {
    const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8').trimEnd()
    const guide = read('../../../../../docs/guides/ag-ui.md')
    const blocks = [...guide.matchAll(/```ts(?: fragment)?\n([\s\S]*?)\n```/g)].map((m) => m[1])
    const files = ['./guides/ag-ui-server.ts', './guides/ag-ui-page.ts', './guides/ag-ui-client.ts'].map(read)
    expect(blocks).toEqual(files)
    for (const file of files) expect(file.split('\n').length).toBeLessThan(30)
  })
})
