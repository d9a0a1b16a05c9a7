import { type ConsumerHost, createToolmark, ok, type RunResult, type ToolmarkOptions } from '@toolmark/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createRecorder,
  diffTools,
  explain,
  exportSession,
  importSession,
  routeOf,
  runAs,
  type ToolRow,
} from '../recorder.ts'

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

  it("shows a running call's latest progress (never its preliminary data), and keeps it once the call ended", async () => {
    const { tm, host, recorder } = setup()
    let step: (u: { fraction?: number; message?: string; data?: unknown }) => void = () => {}
    let finish: () => void = () => {}
    tm.register({
      name: 'upload',
      description: 'Upload',
      hints: { readOnly: true },
      run: (_: unknown, ctx) =>
        new Promise<RunResult>((resolve) => {
          step = (u) => ctx.progress(u)
          finish = () => resolve(ok())
        }),
    })
    const running = host.run('upload', {}, { caller: 'mcp' })
    await tick()
    step({ fraction: 0.25, message: 'first', data: { secret: 'raw' } })
    step({ fraction: 0.5, message: 'second' })
    const entry = recorder.session.calls.at(-1)!
    expect(entry.progress).toMatchObject({ fraction: 0.5, message: 'second' })
    expect(JSON.stringify(entry)).not.toContain('raw')
    finish()
    await running
    step({ fraction: 1 })
    expect(entry.progress).toMatchObject({ fraction: 0.5 })
  })

  it('explains a policy refusal of a playground call and keeps validation issues', async () => {
    const { tm, host, recorder } = setup({ policy: { webmcp: ['readOnly'] } })
    const result = await runAs(host, 'card.update', { number: '4242424242424242', expiry: '12/30' }, 'webmcp')
    expect(result).toMatchObject({ status: 'refused', code: 'not_allowed' })
    expect(recorder.session.calls.at(-1)!).toMatchObject({
      tool: 'card.update',
      caller: 'webmcp',
      input: { number: '[redacted]', expiry: '12/30' },
      blocked: {
        code: 'not_allowed',
        rule: { caller: 'webmcp', hintClass: 'consequential', allowed: ['readOnly'] },
      },
      decision: {
        kind: 'refused',
        code: 'not_allowed',
        reason:
          "The policy lets webmcp call read-only tools (policy.webmcp); card.update is consequential, so it is not in webmcp's manifest.",
      },
    })
    await tm.call('card.update', { number: '1', expiry: '12/30' }, { caller: 'inapp' })
    const invalid = recorder.session.calls.at(-1)!
    expect(invalid.decision.kind).toBe('invalid')
    expect(invalid.issues?.[0]?.path).toBe('number')
  })

  it('explains calls refused before they started by any caller, from the reason the registry reports', async () => {
    const { tm, recorder } = setup()
    const seen = tm.rev
    const extra = tm.register({
      name: 'extra',
      description: 'Extra',
      hints: { readOnly: true },
      run: () => ok(),
    })
    await tick()
    await tm.call('nope', {}, { caller: 'inapp' })
    await tm.call('card.update', { number: '4242', expiry: '1' }, { caller: 'mcp' })
    extra.dispose()
    await tick()
    await tm.call('extra', {}, { caller: 'webmcp', rev: seen + 1 })
    const [unknown, noHandler, stale] = recorder.session.calls.slice(-3)
    expect(unknown!.decision).toEqual({
      kind: 'refused',
      code: 'unknown_tool',
      reason: `No visible tool is named nope at revision ${seen + 1}: not registered, or its scope is hidden.`,
    })
    expect(unknown!.input).toBeUndefined()
    expect(noHandler!.decision.reason).toBe(
      'The policy lets mcp call consequential tools, but card.update must be confirmed inline for mcp and the app has no confirm handler (createToolmark({ confirm })), so it is not offered.',
    )
    expect(noHandler!.input).toEqual({ number: '[redacted]', expiry: '1' })
    expect(stale!.decision).toMatchObject({ kind: 'refused', code: 'stale' })
    expect(stale!.decision.reason).toContain(`after revision ${seen + 1}, which webmcp saw`)
  })

  it('puts every other reason in words: a stale approval, busy, cancelled, a value that is not a caller, a tool hidden from the caller', () => {
    expect(explain({ code: 'stale', rev: undefined, currentRev: 7 }, 'card.update', 'human')).toBe(
      'card.update (or the form its card showed) changed after the user approved it, so the approval was not used; the registry is at revision 7.',
    )
    expect(explain({ code: 'busy' }, 't', 'inapp')).toContain('32 calls queued or running')
    expect(explain({ code: 'cancelled' }, 't', 'inapp')).toContain('before the tool started')
    expect(explain({ code: 'not_allowed', rule: { caller: 'robot' } }, 't', 'robot')).toContain(
      '"robot" is not a caller',
    )
    expect(
      explain(
        { code: 'unknown_tool', rev: 3, currentRev: 4, callers: ['inapp', 'mcp'] },
        'notes.export',
        'webmcp',
      ),
    ).toBe(
      'notes.export is hidden from webmcp: its definition limits it to inapp, mcp (callers), so webmcp sees no tool by that name.',
    )
    expect(explain({ code: 'confirmation_expired' }, 't', 'human')).toBe(
      'The confirmation expired or was already used. The tool did not run.',
    )
  })

  it('names the policy rule that allowed a call and records its queue wait', async () => {
    const { host, recorder } = setup()
    await tick()
    await host.run('notes.list', {}, { caller: 'mcp' })
    const entry = recorder.session.calls.at(-1)!
    expect(entry.decision.reason).toBe(
      'Allowed: the policy lets mcp call read-only tools. No confirmation needed; it ran.',
    )
    expect(typeof entry.queuedMs).toBe('number')
  })

  it('keeps the statuses consumers publish, live', async () => {
    const { host, recorder } = setup()
    host.status('bridge', { state: 'open', clientId: 'c-1' })
    await tick()
    expect(recorder.session.consumers).toEqual({ bridge: { state: 'open', clientId: 'c-1' } })
    host.status('bridge', undefined)
    expect(recorder.session.consumers).toEqual({})
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
      reason: 'Allowed: the policy lets tour call consequential tools. The user approved it, then it ran.',
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

describe('routeOf', () => {
  it('names the route of the nearest enclosing scope a route-aware adapter published, and nothing without one', () => {
    const statuses = {
      routes: { state: 'active', scopes: { app: 'app/layout', 'app.settings': 'app/settings/page' } },
    }
    expect(routeOf(statuses, 'app.settings.form')).toBe('app/settings/page')
    expect(routeOf(statuses, 'app.challenges')).toBe('app/layout')
    expect(routeOf(statuses, '')).toBeUndefined()
    expect(routeOf({}, 'app')).toBeUndefined()
    expect(routeOf({ routes: { state: 'active', scopes: 'app' } }, 'app')).toBeUndefined()
  })
})
