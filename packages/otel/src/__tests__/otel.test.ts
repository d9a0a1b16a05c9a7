import * as api from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import type { ConfirmHandler, ConsumerHost, Toolmark, ToolmarkOptions } from '@toolmark/core'
import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { beforeEach, describe, expect, it } from 'vitest'
import * as z from 'zod'
import { otel, parseTraceparent } from '../index.ts'

/** Waits for queued microtasks and one turn of timers. */
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0))

const CANARY = 'canary-5f0c1e'
const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const tracer = provider.getTracer('test')

beforeEach(() => exporter.reset())

function setup(options: ToolmarkOptions = {}, record = false): { tm: Toolmark; host: ConsumerHost } {
  const tm = createTestToolmark({ dev: false, ...options })
  tm.use(otel({ api, tracer, recordInputs: record, recordResults: record }))
  let host: ConsumerHost | undefined
  tm.use((h) => {
    host = h
    return undefined
  })
  return { tm, host: host! }
}
const spans = (): ReadableSpan[] => exporter.getFinishedSpans()
const only = (): ReadableSpan => {
  expect(spans()).toHaveLength(1)
  return spans()[0]!
}

const search = {
  name: 'search',
  description: 'Search.',
  input: z.object({ query: z.string() }),
  hints: { readOnly: true },
  run: ({ query }: { query: string }) => ok({ hits: [query] }),
}

describe('otel(): one span per call', () => {
  it('names the span and sets the GenAI and toolmark attributes', async () => {
    const { tm } = setup()
    tm.register(search)
    await tm.call('search', { query: 'robots' }, { caller: 'webmcp', callId: 'call-1' })
    const span = only()
    expect(span.name).toBe('execute_tool search')
    expect(span.kind).toBe(api.SpanKind.INTERNAL)
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search',
      'gen_ai.tool.call.id': 'call-1',
      'gen_ai.tool.type': 'function',
      'toolmark.caller': 'webmcp',
      'toolmark.status': 'ok',
    })
    expect(span.status.code).toBe(api.SpanStatusCode.UNSET)
  })

  it('records progress as span events: the fraction always, the message only with recordInputs, 32 at most', async () => {
    for (const record of [false, true]) {
      exporter.reset()
      const { tm } = setup({}, record)
      tm.register({
        name: 'upload',
        description: 'Upload.',
        hints: { readOnly: true },
        run: (_: unknown, ctx) => {
          for (let i = 1; i <= 100; i++) ctx.progress({ fraction: i / 100, message: `${CANARY} ${i}` })
          return ok()
        },
      })
      await tm.call('upload', {}, { caller: 'webmcp' })
      const events = only().events.filter((e) => e.name === 'toolmark.progress')
      expect(events).toHaveLength(32)
      expect(events[0]?.attributes?.['toolmark.progress.fraction']).toBe(0.01)
      expect(events[0]?.attributes?.['toolmark.progress.message']).toBe(record ? `${CANARY} 1` : undefined)
    }
  })

  it('refused, invalid, cancelled and error results set ERROR with error.type', async () => {
    const { tm } = setup({ policy: { mcp: ['readOnly'] }, abortGraceMs: 5 })
    tm.register(search)
    tm.register({ name: 'wipe', description: 'Wipe.', hints: { destructive: true }, run: () => ok() })
    tm.register({
      name: 'boom',
      description: 'Throws.',
      hints: { readOnly: true },
      run: () => {
        throw new Error(CANARY)
      },
    })
    tm.register({
      name: 'slow',
      description: 'Slow.',
      hints: { readOnly: true },
      run: () => new Promise<never>(() => {}),
    })
    await tm.call('wipe', {}, { caller: 'test', callId: 'denied' }) // test caller: approved by the handler
    await tm.call('search', { query: 1 }, { caller: 'mcp', callId: 'invalid' })
    await tm.call('boom', {}, { caller: 'mcp', callId: 'error' })
    const ctrl = new AbortController()
    const slow = tm.call('slow', {}, { caller: 'mcp', callId: 'cancelled', signal: ctrl.signal })
    ctrl.abort()
    await slow
    const byId = Object.fromEntries(spans().map((s) => [s.attributes['gen_ai.tool.call.id'], s]))
    expect(byId.denied!.status.code).toBe(api.SpanStatusCode.UNSET)
    expect(byId.invalid!.attributes).toMatchObject({ 'toolmark.status': 'invalid', 'error.type': 'invalid' })
    expect(byId.error!.attributes).toMatchObject({ 'toolmark.status': 'error', 'error.type': 'tool_error' })
    expect(byId.error!.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'Tool failed' })
    expect(byId.cancelled!.attributes).toMatchObject({
      'toolmark.status': 'cancelled',
      'toolmark.cancelled.by': 'signal',
      'error.type': 'cancelled',
    })
    // A call the policy refuses before the pipeline runs is not a tool execution: no span.
    const refusedEarly = await tm.call('wipe', {}, { caller: 'mcp' })
    expect(refusedEarly).toMatchObject({ status: 'refused', code: 'not_allowed' })
    expect(spans()).toHaveLength(4)
  })

  it('an inline confirmation is two span events with the wait time; a rejection is the status', async () => {
    let answer: (approved: boolean) => void = () => {}
    const confirm: ConfirmHandler = () =>
      new Promise((resolve) => {
        answer = (approved) => resolve({ approved })
      })
    const { tm } = setup({ confirm })
    tm.register({ name: 'save', description: 'Save.', hints: { consequential: true }, run: () => ok() })
    const call = tm.call('save', {}, { caller: 'webmcp' })
    await new Promise((r) => setTimeout(r, 30))
    answer(false)
    await call
    const span = only()
    expect(span.events.map((e) => e.name)).toEqual([
      'toolmark.confirmation.requested',
      'toolmark.confirmation.rejected',
    ])
    expect(span.events[1]!.attributes).toMatchObject({
      'toolmark.confirmation.mode': 'inline',
      'toolmark.confirmation.outcome': 'rejected',
    })
    expect(span.events[1]!.attributes!['toolmark.confirmation.wait_ms']).toBeGreaterThanOrEqual(25)
    expect(span.attributes).toMatchObject({
      'toolmark.status': 'cancelled',
      'toolmark.cancelled.by': 'operator',
    })
  })

  it('a deferred approval settles on its own span (caller human) with the wait and the final status', async () => {
    const { tm } = setup()
    tm.register({
      name: 'save',
      description: 'Save.',
      hints: { consequential: true },
      run: () => ok('saved'),
    })
    const r = await tm.call('save', {}, { caller: 'inapp', callId: 'c9' })
    expect(r.status).toBe('needs_confirmation')
    expect(only().attributes).toMatchObject({ 'toolmark.status': 'needs_confirmation' })
    await tm.confirmPending((r as { confirmId: string }).confirmId, { approved: true })
    const settled = spans()[1]!
    expect(settled.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'c9',
      'toolmark.caller': 'human',
      'toolmark.status': 'ok',
    })
    expect(settled.events.map((e) => e.name)).toEqual(['toolmark.confirmation.approved'])
  })

  it('continues the trace of a relayed call that carries a traceparent', async () => {
    const { tm, host } = setup()
    tm.register(search)
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const parent = '00f067aa0ba902b7'
    await host.run(
      'search',
      { query: 'q' },
      { caller: 'mcp', meta: { traceparent: `00-${traceId}-${parent}-01` } },
    )
    const span = only()
    expect(span.spanContext().traceId).toBe(traceId)
    expect(span.parentSpanContext?.spanId).toBe(parent)
    exporter.reset()
    // Without (or with a malformed) traceparent the span starts a new trace.
    await host.run('search', { query: 'q' }, { caller: 'mcp', meta: { traceparent: '00-zz-11-01' } })
    expect(only().spanContext().traceId).not.toBe(traceId)
    expect(only().parentSpanContext).toBeUndefined()
  })

  it('records nothing of inputs or results unless asked', async () => {
    const { tm } = setup()
    tm.register(search)
    await tm.call('search', { query: CANARY }, { caller: 'test' })
    expect(JSON.stringify(only().attributes)).not.toContain(CANARY)
  })

  it('no canary secret reaches an attribute or an event, even with inputs and results recorded', async () => {
    const confirm: ConfirmHandler = () => ({ approved: true })
    const { tm } = setup({ confirm }, true)
    tm.register({
      name: 'login',
      description: 'Log in.',
      summary: (input) =>
        `Log in as ${(input as { user: string }).user} with ${(input as { password: string }).password}`,
      input: z.object({
        user: z.string(),
        password: z.string(),
        card: z.object({ cvc: z.string() }).optional(),
      }),
      hints: { consequential: true },
      sensitivePaths: ['password', 'card.cvc'],
      run: (input) => ok({ user: input.user, password: input.password, card: { cvc: CANARY } }),
    })
    tm.register({
      name: 'leaky',
      description: 'Throws with the secret.',
      hints: { readOnly: true },
      run: () => {
        throw new Error(CANARY)
      },
    })
    await tm.call('login', { user: 'ada', password: CANARY, card: { cvc: CANARY } }, { caller: 'webmcp' })
    await tm.call('leaky', {}, { caller: 'webmcp' })
    await tick()
    const all = spans()
    expect(all).toHaveLength(2)
    const login = all[0]!
    expect(JSON.parse(login.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({
      user: 'ada',
      password: '[redacted]',
      card: { cvc: '[redacted]' },
    })
    expect(JSON.parse(login.attributes['gen_ai.tool.call.result'] as string)).toEqual({
      user: 'ada',
      password: '[redacted]',
      card: { cvc: '[redacted]' },
    })
    const everything = JSON.stringify(
      all.map((s) => [s.name, s.attributes, s.status, s.events.map((e) => [e.name, e.attributes])]),
    )
    expect(everything).not.toContain(CANARY)
  })

  it('a card, CVC, PIN and password reach no span attribute or event: masked at the sensitive paths when recorded, absent when not', async () => {
    const CARD = '4242 4242 4242 4242'
    const secrets = [CARD, '123', '4821', 'hunter2-Zq9']
    const pay = {
      name: 'pay',
      description: 'Pay with a card.',
      input: z.object({
        card: z.object({ number: z.string(), cvc: z.string() }),
        pin: z.string(),
        password: z.string(),
      }),
      hints: { consequential: true },
      sensitivePaths: ['card.number', 'card.cvc', 'pin', 'password'],
      // A careless tool: its result repeats the input.
      run: (input: { card: { number: string; cvc: string }; pin: string; password: string }) =>
        ok({ paid: true, ...input }),
    }
    const input = { card: { number: CARD, cvc: '123' }, pin: '4821', password: 'hunter2-Zq9' }
    const recorded = (): string =>
      JSON.stringify(
        spans().map((s) => [s.name, s.attributes, s.status, s.events.map((e) => [e.name, e.attributes])]),
      )
    for (const record of [false, true]) {
      exporter.reset()
      const { tm } = setup({ confirm: () => ({ approved: true }) }, record)
      tm.register(pay)
      // Inline (webmcp: the confirm handler approves) and deferred (inapp: approved afterwards, on its own span).
      expect(await tm.call('pay', input, { caller: 'webmcp' })).toMatchObject({ status: 'ok' })
      const deferred = await tm.call('pay', input, { caller: 'inapp' })
      expect(deferred.status).toBe('needs_confirmation')
      await tm.confirmPending((deferred as { confirmId: string }).confirmId, { approved: true })
      await tick()
      expect(spans()).toHaveLength(3)
      const text = recorded()
      // A short secret ('123') can occur inside a random trace or confirm id, so a leak is the
      // secret standing alone: not inside a longer word or number.
      for (const secret of secrets) {
        const alone = new RegExp(`(?<![\\w.])${secret.replace(/ /g, '\\s')}(?![\\w.])`)
        expect({ record, leaked: alone.test(text) }).toEqual({ record, leaked: false })
      }
      if (!record) expect(text).not.toContain('gen_ai.tool.call.arguments')
      else {
        const masked = {
          card: { number: '[redacted]', cvc: '[redacted]' },
          pin: '[redacted]',
          password: '[redacted]',
        }
        expect(JSON.parse(spans()[0]!.attributes['gen_ai.tool.call.arguments'] as string)).toEqual(masked)
        for (const span of [spans()[0]!, spans()[2]!])
          expect(JSON.parse(span.attributes['gen_ai.tool.call.result'] as string)).toEqual({
            paid: true,
            ...masked,
          })
      }
    }
  })

  it('detaching ends open spans and stops recording', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'slow',
      description: 'Slow.',
      hints: { readOnly: true },
      run: () => new Promise<never>(() => {}),
    })
    const detach = tm.use(otel({ api, tracer }))
    void tm.call('slow', {}, { caller: 'test' })
    detach()
    expect(only().attributes['toolmark.status']).toBe('detached')
    tm.scope('other').register(search) // another scope: not queued behind the slow call
    await tm.call('other.search', { query: 'q' }, { caller: 'test' })
    expect(spans()).toHaveLength(1)
  })
})

describe('parseTraceparent', () => {
  it('accepts the W3C form and rejects the rest', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
    })
    for (const bad of [
      undefined,
      42,
      '',
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
    ]) {
      expect(parseTraceparent(bad)).toBeUndefined()
    }
  })
})
