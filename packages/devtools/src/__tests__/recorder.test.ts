import { type ConsumerHost, createToolmark, ok, type ToolmarkOptions } from '@toolmark/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createRecorder, diffTools, exportSession, importSession, runAs, type ToolRow } from '../recorder.ts'

const tick = () => new Promise((r) => setTimeout(r, 0))

function setup(options: ToolmarkOptions = {}) {
  const tm = createToolmark({ dev: true, ...options })
  let host!: ConsumerHost
  tm.use((h) => {
    host = h
    return undefined
  })
  tm.register({
    name: 'notes.list',
    description: 'List notes',
    hints: { readOnly: true },
    run: () => ok(['a']),
  })
  tm.register({
    name: 'card.update',
    description: 'Replace the card',
    hints: { consequential: true },
    input: z.object({ number: z.string().min(4), expiry: z.string() }),
    sensitivePaths: ['number'],
    // The result echoes the number at the sensitive path: the recorder must redact it there too.
    run: (input) => ok({ number: input.number, expiry: input.expiry }),
  })
  const recorder = createRecorder(host)
  return { tm, host, recorder }
}

describe('recorder', () => {
  it('records each revision with the callers that may see each tool', async () => {
    const { tm, recorder } = setup({ policy: { webmcp: ['readOnly'] } })
    await tick()
    const rev = recorder.session.revisions.at(-1)!
    expect(rev.rev).toBe(tm.rev)
    const card = rev.tools.find((t) => t.name === 'card.update')!
    expect(card.callers).not.toContain('webmcp')
    expect(card.callers).toContain('inapp')
    expect(card.needsConfirmation).toBe(true)
    expect(rev.tools.find((t) => t.name === 'notes.list')!.callers).toContain('webmcp')
  })

  it('diffs revisions: added, removed and changed by field', async () => {
    const { tm, recorder } = setup()
    await tick()
    const before = recorder.session.revisions.length
    const handle = tm.register({
      name: 'extra.one',
      description: 'One',
      hints: { readOnly: true },
      run: () => ok(),
    })
    await tick()
    expect(recorder.session.revisions.at(-1)!.diff).toEqual({
      added: ['extra.one'],
      removed: [],
      changed: [],
    })
    handle.dispose()
    await tick()
    expect(recorder.session.revisions.length).toBe(before + 2)
    expect(recorder.session.revisions.at(-1)!.diff.removed).toEqual(['extra.one'])
    const row = (over: Partial<ToolRow>): ToolRow => ({
      name: 't',
      description: 'd',
      hints: {},
      scope: '',
      needsConfirmation: false,
      callers: [],
      inputSchema: { type: 'object' },
      ...over,
    })
    expect(
      diffTools([row({})], [row({ description: 'e', inputSchema: { type: 'string' } })]).changed,
    ).toEqual([{ name: 't', fields: ['description', 'inputSchema'] }])
  })

  it('records an allowed call with its decision, duration and trace id', async () => {
    const { host, recorder } = setup()
    await host.run(
      'notes.list',
      {},
      {
        caller: 'mcp',
        meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      },
    )
    const entry = recorder.session.calls.at(-1)!
    expect(entry).toMatchObject({
      tool: 'notes.list',
      caller: 'mcp',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      result: { status: 'ok', data: ['a'] },
      decision: { kind: 'allowed' },
    })
    expect(typeof entry.durationMs).toBe('number')
  })

  it('explains a policy refusal of a playground call and keeps validation issues', async () => {
    const { tm, host, recorder } = setup({ policy: { webmcp: ['readOnly'] } })
    const result = await runAs(
      host,
      recorder,
      'card.update',
      { number: '4242424242424242', expiry: '12/30' },
      'webmcp',
    )
    expect(result).toMatchObject({ status: 'refused', code: 'not_allowed' })
    expect(recorder.session.calls.at(-1)!).toMatchObject({
      tool: 'card.update',
      caller: 'webmcp',
      input: { number: '[redacted]', expiry: '12/30' },
      decision: { kind: 'refused', code: 'not_allowed' },
    })
    await tm.call('card.update', { number: '1', expiry: '12/30' }, { caller: 'inapp' })
    const invalid = recorder.session.calls.at(-1)!
    expect(invalid.decision.kind).toBe('invalid')
    expect(invalid.issues?.[0]?.path).toBe('number')
  })

  it('follows a deferred confirmation through its life and never holds a sensitive value', async () => {
    const { tm, recorder } = setup()
    const first = await tm.call(
      'card.update',
      { number: '4242424242424242', expiry: '12/30' },
      { caller: 'inapp' },
    )
    expect(first.status).toBe('needs_confirmation')
    let entry = recorder.session.calls.at(-1)!
    expect(entry.decision.kind).toBe('confirm')
    expect(entry.confirmations).toHaveLength(1)
    expect(entry.confirmations[0]!.mode).toBe('deferred')
    expect(entry.confirmations[0]!.outcome).toBeUndefined()
    expect(entry.confirmations[0]!.why).toMatch(/cannot wait in the page/)
    const pending = tm.pendingConfirmations()[0]!
    await tm.confirmPending(pending.confirmId, { approved: true })
    await tick()
    entry = recorder.session.calls.at(-1)!
    expect(entry.confirmations[0]!.outcome).toBe('approved')
    expect(typeof entry.confirmations[0]!.waitMs).toBe('number')
    expect(entry.result).toEqual({ status: 'ok', data: { number: '[redacted]', expiry: '12/30' } })
    expect(recorder.export()).not.toContain('4242')
    expect(JSON.stringify(recorder.session)).not.toContain('4242')
  })

  it('records a rejected confirmation as the reason the tool did not run', async () => {
    const { tm, recorder } = setup()
    await tm.call('card.update', { number: '4242424242424242', expiry: '12/30' }, { caller: 'inapp' })
    await tm.confirmPending(tm.pendingConfirmations()[0]!.confirmId, { approved: false })
    await tick()
    const entry = recorder.session.calls.at(-1)!
    expect(entry.confirmations[0]!.outcome).toBe('rejected')
    expect(entry.decision).toMatchObject({
      kind: 'cancelled',
      reason: 'The confirmation was rejected; the tool did not run.',
    })
  })

  it('exports a session as JSON and imports it back; anything else is a clear TypeError', async () => {
    const { tm, recorder } = setup()
    await tm.call('notes.list', {}, { caller: 'tour' })
    const back = importSession(recorder.export())
    expect(back.calls.map((c) => c.tool)).toEqual(['notes.list'])
    expect(exportSession(back)).toBe(recorder.export())
    expect(() => importSession('{')).toThrow('Not a Toolmark devtools session: the file is not JSON')
    expect(() => importSession('{"format":"other"}')).toThrow(/"format" is not "toolmark-devtools-session"/)
    expect(() => importSession('{"format":"toolmark-devtools-session","version":2}')).toThrow(/version/)
  })

  it('stops recording when disposed', async () => {
    const { tm, recorder } = setup()
    recorder.dispose()
    await tm.call('notes.list', {}, { caller: 'tour' })
    expect(recorder.session.calls).toEqual([])
  })

  it('records an inline confirmation: why it is inline, and its outcome', async () => {
    const { tm, recorder } = setup({ confirm: () => ({ approved: true }) })
    const result = await tm.call(
      'card.update',
      { number: '4242424242424242', expiry: '12/30' },
      { caller: 'tour' },
    )
    expect(result.status).toBe('ok')
    const entry = recorder.session.calls.at(-1)!
    expect(entry.confirmations).toHaveLength(1)
    expect(entry.confirmations[0]).toMatchObject({ mode: 'inline', outcome: 'approved' })
    expect(entry.confirmations[0]!.why).toMatch(/waits in the page/)
    expect(entry.decision).toMatchObject({
      kind: 'confirm',
      reason: 'Allowed by the policy; the user approved it, then it ran.',
    })
    expect(JSON.stringify(entry)).not.toContain('4242')
  })

  it('keeps the newest calls up to its limit', async () => {
    const tm = createToolmark({ dev: true })
    let host!: ConsumerHost
    tm.use((h) => {
      host = h
      return undefined
    })
    tm.register({ name: 'ping', description: 'Ping', hints: { readOnly: true }, run: () => ok() })
    const recorder = createRecorder(host, { limit: 2 })
    for (const caller of ['inapp', 'tour', 'test'] as const) await tm.call('ping', {}, { caller })
    expect(recorder.session.calls.map((c) => c.caller)).toEqual(['tour', 'test'])
  })
})
