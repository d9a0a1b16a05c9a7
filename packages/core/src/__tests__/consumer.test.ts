import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createTestToolmark } from '../testing/index.ts'
import { ok, refused } from '../tool/result.ts'
import type { CallMeta, ConsumerHost, Manifest, ToolManifest, ToolmarkErrorEvent } from '../types.ts'
import { searchTool, tick } from './helpers.ts'

/** Attaches a consumer and hands back the host it was given. */
function hostOf(tm = createTestToolmark()): { host: ConsumerHost; detach: () => void } {
  let host: ConsumerHost | undefined
  const detach = tm.use((h) => {
    host = h
    return undefined
  })
  return { host: host!, detach }
}

describe('the consumer host (what tm.use hands a consumer)', () => {
  it('report emits an error event and never throws, also in development', () => {
    const tm = createTestToolmark({ dev: true })
    const errors: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => errors.push(e))
    const { host } = hostOf(tm)
    const cause = new Error('boom')
    expect(() => host.report('transport_failed', 'send failed', { cause, tool: 'x' })).not.toThrow()
    host.report('duplicate_name', 'taken', { level: 'warning' })
    expect(errors).toEqual([
      { code: 'transport_failed', message: 'send failed', level: 'error', cause, tool: 'x' },
      { code: 'duplicate_name', message: 'taken', level: 'warning' },
    ])
  })

  it('watch delivers the caller’s manifest now and once per revision, until unsubscribed', async () => {
    const tm = createTestToolmark({ policy: { webmcp: ['readOnly'] } })
    tm.register(searchTool)
    const { host } = hostOf(tm)
    const seen: Manifest<ToolManifest>[] = []
    const off = host.watch({ caller: 'webmcp', detail: 'full' }, (m) => seen.push(m))
    expect(seen).toHaveLength(1)
    expect(seen[0]!.tools.map((t) => t.name)).toEqual(['search'])
    expect(seen[0]!.tools[0]!.inputSchema).toMatchObject({ type: 'object', required: ['query'] })

    // Two registrations in one tick publish one revision; the hidden one is filtered by policy.
    tm.register({ ...searchTool, name: 'find' })
    tm.register({ name: 'wipe', description: 'Wipe', hints: { destructive: true }, run: () => ok() })
    await tick()
    expect(seen).toHaveLength(2)
    expect(seen[1]!.rev).toBe(tm.rev)
    expect(seen[1]!.tools.map((t) => t.name)).toEqual(['find', 'search'])

    off()
    tm.register({ ...searchTool, name: 'more' })
    await tick()
    expect(seen).toHaveLength(2)
  })

  it('watch never repeats a revision (attach before the pending publish)', async () => {
    const tm = createTestToolmark()
    tm.register(searchTool)
    const { host } = hostOf(tm)
    const revs: number[] = []
    host.watch({ caller: 'inapp' }, (m) => revs.push(m.rev))
    await tick()
    expect(revs).toEqual([tm.rev])
  })

  it('observe sees calls, confirmations and results with the meta that run attached', async () => {
    const tm = createTestToolmark()
    tm.register(searchTool)
    tm.register({
      name: 'save',
      description: 'Save',
      hints: { consequential: true },
      input: z.object({ title: z.string() }),
      run: () => ok('saved'),
    })
    const { host } = hostOf(tm)
    const log: Array<[string, string, CallMeta | undefined]> = []
    const off = host.observe({
      call: (e, meta) => log.push(['call', e.tool, meta]),
      confirm: (e, meta) => log.push([`confirm:${e.phase}`, e.callId, meta]),
      result: (e, meta) => log.push([`result:${e.result.status}`, e.tool, meta]),
    })
    const meta = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }
    expect(await host.run('save', { title: 'A' }, { caller: 'mcp', meta, callId: 'c1' })).toEqual(ok('saved'))
    expect(await tm.call('search', { query: 'q' }, { caller: 'test' })).toEqual(ok({ query: 'q' }))
    expect(log).toEqual([
      ['call', 'save', meta],
      ['confirm:requested', 'c1', meta],
      ['confirm:settled', 'c1', meta],
      ['result:ok', 'save', meta],
      ['call', 'search', undefined],
      ['result:ok', 'search', undefined],
    ])
    off()
    await host.run('search', { query: 'q' }, { caller: 'mcp', meta })
    expect(log).toHaveLength(6)
  })

  it('run never rejects and drops the meta once the call resolved', async () => {
    const tm = createTestToolmark()
    tm.register(searchTool)
    const { host } = hostOf(tm)
    const metas: Array<CallMeta | undefined> = []
    host.observe({ result: (_, meta) => metas.push(meta) })
    expect(await host.run('nope', {}, { caller: 'webmcp', meta: { a: 1 } })).toMatchObject({
      code: 'unknown_tool',
    })
    const r = await host.run('search', { query: 'q' }, { caller: 'webmcp', meta: { a: 2 }, callId: 'same' })
    expect(r).toEqual(ok({ query: 'q' }))
    // The same callId reused without meta: observers see none (the earlier meta is gone).
    await host.run('search', { query: 'q' }, { caller: 'webmcp', callId: 'same' })
    expect(metas).toEqual([{ a: 2 }, undefined])
  })

  it('redact masks sensitive paths, and the whole value for a tool that is gone', () => {
    const tm = createTestToolmark()
    const h = tm.register({
      name: 'pay',
      description: 'Pay',
      hints: { readOnly: true },
      sensitivePaths: ['card.cvc'],
      run: () => ok(),
    })
    const { host } = hostOf(tm)
    expect(host.redact('pay', { card: { cvc: '123', last4: '4242' } })).toEqual({
      card: { cvc: '[redacted]', last4: '4242' },
    })
    expect(host.redact('search', { query: 'x' })).toBe('[redacted]')
    h.dispose()
    expect(host.redact('pay', { card: { cvc: '123' } })).toBe('[redacted]')
  })

  it('expirePending expires an open deferred confirmation as its expiry would, once', async () => {
    const tm = createTestToolmark()
    const run = vi.fn(() => ok())
    tm.register({ name: 'save', description: 'Save', hints: { consequential: true }, run })
    const { host } = hostOf(tm)
    const settled: unknown[] = []
    tm.events.on('confirm', (e) => {
      if (e.phase === 'settled') settled.push([e.outcome, e.result])
    })
    const asked = await tm.call('save', {}, { caller: 'inapp' })
    const confirmId = (asked as { confirmId: string }).confirmId
    expect(tm.pendingConfirmations()).toHaveLength(1)

    expect(host.expirePending(confirmId)).toBe(true)
    expect(tm.pendingConfirmations()).toEqual([])
    expect(settled).toEqual([['expired', refused('confirmation_expired')]])
    expect(await tm.confirmPending(confirmId, { approved: true })).toEqual(refused('confirmation_expired'))
    expect(run).not.toHaveBeenCalled()
    expect(host.expirePending(confirmId)).toBe(false)
    expect(host.expirePending('unknown')).toBe(false)
    expect(settled).toHaveLength(1)
  })
})
