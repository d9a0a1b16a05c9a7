// The `blocked` observer hook: every call answered before its tool's `run` started reaches it with
// the reason as data (the policy rule, the revisions, the validation issues), and the queue wait
// of calls that did start is on their result event.
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { searchTool, tick } from '../../__tests__/helpers.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import { createToolmark } from '../../toolmark.ts'
import type { CallMeta, ConsumerHost, ConsumerStatus, Toolmark, ToolmarkEvents } from '../../types.ts'

/** Attaches an observer that records `blocked` events (with their meta) and `result` events. */
function observed(tm: Toolmark): {
  host: ConsumerHost
  blocked: Array<ToolmarkEvents['blocked'] & { meta: CallMeta | undefined }>
  results: ToolmarkEvents['result'][]
  detach: () => void
} {
  let host: ConsumerHost | undefined
  const blocked: Array<ToolmarkEvents['blocked'] & { meta: CallMeta | undefined }> = []
  const results: ToolmarkEvents['result'][] = []
  const detach = tm.use((h) => {
    host = h
    return h.observe({
      blocked: (e, meta) => blocked.push({ ...e, meta }),
      result: (e) => results.push(e),
    })
  })
  return { host: host!, blocked, results, detach }
}

const save = {
  name: 'save',
  description: 'Save',
  hints: { consequential: true },
  input: z.object({ title: z.string(), secret: z.string().optional() }),
  sensitivePaths: ['secret'],
  run: () => ok('saved'),
}

describe('CallObserver.blocked', () => {
  it('reports a policy refusal with the rule that made it, and the redacted input', async () => {
    const tm = createTestToolmark({ policy: { webmcp: ['readOnly'] } })
    tm.register(save)
    const { host, blocked } = observed(tm)
    const result = await host.run(
      'save',
      { title: 't', secret: 'hunter2' },
      { caller: 'webmcp', callId: 'c1', meta: { traceparent: 'x' } },
    )
    expect(result).toMatchObject({ status: 'refused', code: 'not_allowed' })
    expect(blocked).toEqual([
      {
        callId: 'c1',
        tool: 'save',
        caller: 'webmcp',
        reason: {
          code: 'not_allowed',
          rule: { caller: 'webmcp', hintClass: 'consequential', allowed: ['readOnly'] },
        },
        result,
        input: { title: 't', secret: '[redacted]' },
        meta: { traceparent: 'x' },
      },
    ])
  })

  it('says when the class is allowed but the tool must be confirmed inline and there is no confirm handler', async () => {
    const tm = createToolmark({ live: true })
    tm.register(save)
    const { blocked } = observed(tm)
    await tm.call('save', { title: 't' }, { caller: 'mcp' })
    expect(blocked[0]!.reason).toEqual({
      code: 'not_allowed',
      rule: {
        caller: 'mcp',
        hintClass: 'consequential',
        allowed: expect.arrayContaining(['consequential']),
        noConfirmHandler: true,
      },
    })
  })

  it('reports a value that is not a caller, an unknown tool and a stale one with the revisions', async () => {
    const tm = createTestToolmark()
    const handle = tm.register(searchTool)
    const seen = tm.rev
    const { blocked } = observed(tm)
    await tm.call('search', { query: 'q' }, { caller: 'robot' as never })
    await tm.call('nope', {}, { caller: 'inapp' })
    handle.dispose()
    await tick()
    await tm.call('search', { query: 'q' }, { caller: 'inapp', rev: seen })
    expect(blocked.map((b) => [b.caller, b.reason, 'input' in b])).toEqual([
      ['robot', { code: 'not_allowed', rule: { caller: 'robot' } }, false],
      ['inapp', { code: 'unknown_tool', rev: undefined, currentRev: seen }, false],
      ['inapp', { code: 'stale', rev: seen, currentRev: tm.rev }, false],
    ])
  })

  it('reports invalid input with its issues, under the id of the call event', async () => {
    const tm = createTestToolmark()
    tm.register(searchTool)
    const { host, blocked } = observed(tm)
    const calls: string[] = []
    host.observe({ call: (e) => calls.push(e.callId) })
    const result = await tm.call('search', { query: 3 }, { caller: 'inapp' })
    expect(result.status).toBe('invalid')
    expect(blocked).toHaveLength(1)
    expect(blocked[0]!.callId).toBe(calls[0])
    expect(blocked[0]!.reason).toEqual({
      code: 'invalid',
      issues: [expect.objectContaining({ path: 'query' })],
    })
  })

  it('reports a call cancelled before it started and one cancelled while it waited in the queue', async () => {
    const tm = createTestToolmark()
    let release: () => void = () => {}
    tm.register({
      name: 'slow',
      description: 'Slow',
      hints: { readOnly: true },
      run: () => new Promise<undefined>((r) => (release = () => r(undefined))),
    })
    const { blocked } = observed(tm)
    await tm.call('slow', {}, { caller: 'inapp', signal: AbortSignal.abort() })
    const first = tm.call('slow', {}, { caller: 'inapp' })
    const controller = new AbortController()
    const second = tm.call('slow', {}, { caller: 'inapp', callId: 'queued', signal: controller.signal })
    controller.abort()
    expect(await second).toEqual({ status: 'cancelled', by: 'signal' })
    release()
    await first
    expect(blocked.map((b) => [b.tool, b.reason.code])).toEqual([
      ['slow', 'cancelled'],
      ['slow', 'cancelled'],
    ])
    expect(blocked[1]!.callId).toBe('queued')
  })

  it('reports busy when the scope queue is full', async () => {
    const tm = createTestToolmark()
    tm.register({
      name: 'hold',
      description: 'Hold',
      hints: { readOnly: true },
      run: () => new Promise<undefined>(() => {}),
    })
    const { blocked } = observed(tm)
    for (let i = 0; i < 32; i++) void tm.call('hold', {}, { caller: 'inapp' })
    await tm.call('hold', {}, { caller: 'inapp' })
    expect(blocked.map((b) => b.reason)).toEqual([{ code: 'busy' }])
  })

  it('puts the time a call waited in its queue on its result', async () => {
    const tm = createTestToolmark()
    let release: () => void = () => {}
    tm.register({
      name: 'slow',
      description: 'Slow',
      hints: { readOnly: true },
      run: () => new Promise<undefined>((r) => (release = () => r(undefined))),
    })
    tm.register({ ...searchTool })
    const { results } = observed(tm)
    const first = tm.call('slow', {}, { caller: 'inapp' })
    const second = tm.call('slow', {}, { caller: 'inapp' })
    await new Promise((r) => setTimeout(r, 20))
    release()
    await first
    await tick()
    release()
    await second
    await tm.call('search', { query: 'q' }, { caller: 'inapp' })
    expect(results.map((r) => typeof r.queuedMs)).toEqual(['number', 'number', 'number'])
    expect(results[1]!.queuedMs!).toBeGreaterThan(results[0]!.queuedMs!)
  })

  it('stops reporting once detached, and a call that runs is never reported', async () => {
    const tm = createTestToolmark()
    tm.register(searchTool)
    const { blocked, detach } = observed(tm)
    await tm.call('search', { query: 'q' }, { caller: 'inapp' })
    expect(blocked).toEqual([])
    detach()
    await tm.call('nope', {}, { caller: 'inapp' })
    expect(blocked).toEqual([])
  })
})

describe('ConsumerHost.status', () => {
  it('keeps each consumer’s latest status by name, tells `status` listeners, and withdraws it', () => {
    const tm = createTestToolmark()
    const { host } = observed(tm)
    const heard: Array<[string, ConsumerStatus | undefined]> = []
    tm.events.on('status', (e) => heard.push([e.name, e.status]))
    const status: ConsumerStatus = { state: 'open', clientId: 'c' }
    host.status('bridge', status)
    status.state = 'changed later'
    host.status('webmcp', { state: 'published', tools: ['a'] })
    expect(host.statuses()).toEqual({
      bridge: { state: 'open', clientId: 'c' },
      webmcp: { state: 'published', tools: ['a'] },
    })
    host.status('bridge', undefined)
    expect(Object.keys(host.statuses())).toEqual(['webmcp'])
    expect(heard).toEqual([
      ['bridge', { state: 'open', clientId: 'c' }],
      ['webmcp', { state: 'published', tools: ['a'] }],
      ['bridge', undefined],
    ])
  })
})
