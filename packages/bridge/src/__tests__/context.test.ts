/**
 * The opt-in `context` extension on the page side (`@toolmark/bridge/context`): offered after the manifest, sent
 * only once the server accepted it, masked, then again only when the context changed, at most once per interval.
 */

import { ok, type RunResult, type ToolContext } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { MAX_CONTEXT_ENTRIES } from '@toolmark/protocol/extensions'
import { describe, expect, it } from 'vitest'
import { contextBridge } from '../context.ts'
import { createInPageChannel } from '../in-page.ts'
import { progressBridge } from '../progress.ts'
import { CLIENT, type Msg, tick, until } from './helpers.ts'

/** A page with a `search` tool (so caller inapp sees the context) and a contextBridge over an in-page channel. */
function contextPage(intervalMs = 40) {
  const tm = createTestToolmark({ dev: false })
  const errors: Array<{ code: string; message: string }> = []
  tm.events.on('error', (e) => errors.push({ code: e.code, message: e.message }))
  tm.register({
    name: 'search',
    description: 'Search',
    hints: { readOnly: true },
    run: () => ({ status: 'ok' }),
  })
  const { transport, agent } = createInPageChannel()
  const received: Msg[] = []
  agent.onMessage((m) => received.push(m as Msg))
  const dispose = tm.use(contextBridge({ transport, clientId: CLIENT, intervalMs }))
  const send = (m: Msg): void => agent.send({ protocol: 1, clientId: CLIENT, ...m })
  const of = (type: string): Msg[] => received.filter((m) => m.type === type)
  const accept = (names = ['context']): void => send({ type: 'extensions', accept: names })
  return { tm, received, errors, send, of, accept, dispose }
}

const entriesOf = (m: Msg | undefined): unknown => m?.entries

describe('contextBridge', () => {
  it('offers the extension once, after its manifest', async () => {
    const p = contextPage()
    p.tm.context({ name: 'order', description: 'The open order', value: { id: 7 } })
    await tick()
    expect(p.received.map((m) => m.type).slice(0, 2)).toEqual(['manifest', 'extensions'])
    expect(p.of('extensions')).toEqual([
      { protocol: 1, type: 'extensions', clientId: CLIENT, offer: ['context'] },
    ])
  })

  it('sends nothing of the context to a server that never accepted it (a v1 server, or one without context)', async () => {
    const p = contextPage()
    p.tm.context({ name: 'order', description: 'The open order', value: { id: 7 } })
    await tick()
    p.accept(['progress'])
    await new Promise((r) => setTimeout(r, 80))
    expect(p.of('context')).toEqual([])
  })

  it('once accepted, sends the masked context the page has now', async () => {
    const p = contextPage()
    p.tm.context({
      name: 'customer',
      description: 'The customer on screen',
      value: { name: 'Ada', card: '4111 1111 1111 1111' },
      sensitivePaths: ['card'],
    })
    await tick()
    p.accept()
    await until(() => p.of('context').length === 1, 'first context')
    expect(p.of('context')[0]).toEqual({
      protocol: 1,
      type: 'context',
      clientId: CLIENT,
      rev: expect.any(Number),
      entries: [
        {
          name: 'customer',
          description: 'The customer on screen',
          value: { name: 'Ada', card: '[redacted]' },
        },
      ],
    })
    expect(JSON.stringify(p.received)).not.toContain('4111')
  })

  it('sends again only when the context changed, the latest value winning within an interval', async () => {
    const p = contextPage(60)
    const selection = p.tm.context({ name: 'selection', description: 'Selected rows', value: [] as number[] })
    await tick()
    p.accept()
    await until(() => p.of('context').length === 1, 'first context')
    selection.set([]) // the same value: nothing to send
    selection.set([1])
    selection.set([1, 2])
    await until(() => p.of('context').length === 2, 'second context')
    await new Promise((r) => setTimeout(r, 120))
    expect(p.of('context').map(entriesOf)).toEqual([
      [{ name: 'selection', description: 'Selected rows', value: [] }],
      [{ name: 'selection', description: 'Selected rows', value: [1, 2] }],
    ])
    selection.dispose()
    await until(() => p.of('context').length === 3, 'context after dispose')
    expect(entriesOf(p.of('context')[2])).toEqual([])
    const revs = p.of('context').map((m) => m.rev as number)
    expect(revs).toEqual([...revs].sort((a, b) => a - b)) // the server keeps the highest
  })

  it('sends an empty context and reports invalid_context when the context is larger than the bridge sends', async () => {
    const p = contextPage()
    for (let i = 0; i <= MAX_CONTEXT_ENTRIES; i++) p.tm.context({ name: `e${i}`, description: 'd', value: i })
    await tick()
    p.accept()
    await until(() => p.of('context').length === 1, 'context')
    expect(entriesOf(p.of('context')[0])).toEqual([])
    expect(p.errors).toEqual([expect.objectContaining({ code: 'invalid_context' })])
  })

  it('stops sending once disposed', async () => {
    const p = contextPage()
    const selection = p.tm.context({ name: 'selection', description: 'Selected rows', value: 1 })
    await tick()
    p.accept()
    await until(() => p.of('context').length === 1, 'first context')
    p.dispose()
    selection.set(2)
    await new Promise((r) => setTimeout(r, 80))
    expect(p.of('context')).toHaveLength(1)
  })
})

describe('contextBridge over progressBridge', () => {
  it('sends one offer naming both extensions, and each one works once the server accepts both', async () => {
    const tm = createTestToolmark({ dev: false })
    let step: ((update: { fraction: number }) => void) | undefined
    let finish: () => void = () => {}
    tm.register({
      name: 'work',
      description: 'Long work',
      hints: { readOnly: true },
      run: (_: unknown, c: ToolContext) =>
        new Promise<RunResult>((resolve) => {
          step = (update) => c.progress(update)
          finish = () => resolve(ok('done'))
        }),
    })
    tm.context({ name: 'selection', description: 'Selected rows', value: [4] })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    const { transport, agent } = createInPageChannel()
    const received: Msg[] = []
    agent.onMessage((m) => received.push(m as Msg))
    tm.use(contextBridge({ transport, clientId: CLIENT, base: progressBridge }))
    const of = (type: string): Msg[] => received.filter((m) => m.type === type)
    await tick()
    expect(of('extensions')).toEqual([
      { protocol: 1, type: 'extensions', clientId: CLIENT, offer: ['progress', 'context'] },
    ])
    agent.send({ protocol: 1, clientId: CLIENT, type: 'extensions', accept: ['progress', 'context'] })
    await until(() => of('context').length === 1, 'context')
    expect(entriesOf(of('context')[0])).toEqual([
      { name: 'selection', description: 'Selected rows', value: [4] },
    ])
    agent.send({ protocol: 1, clientId: CLIENT, type: 'call', id: 'c1', tool: 'work', input: {} })
    await tick()
    step?.({ fraction: 0.5 })
    await until(() => of('progress').length === 1, 'progress')
    expect(of('progress')[0]).toMatchObject({ id: 'c1', fraction: 0.5 })
    finish()
    await until(() => of('result').length === 1, 'result')
    // The answer to the offer reached both extensions and never the bridge as an invalid message.
    expect(of('extensions')).toHaveLength(1)
    expect(errors).toEqual([])
  })
})
