/**
 * A tool's `callers` option: the callers it leaves out never see the tool (manifest, describe) and
 * are answered `unknown_tool` by name; the callers it lists, and the user approving their calls,
 * work as before.
 */
import { describe, expect, it, vi } from 'vitest'
import { createDef, needs, tool } from '../../__tests__/helpers.ts'
import { UNKNOWN_TOOL_MESSAGE } from '../../codes.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import { createToolmark } from '../../toolmark.ts'
import type { CallBlocked, Caller, ToolDefinition, ToolmarkErrorEvent } from '../../types.ts'

const AGENTS: Exclude<Caller, 'human'>[] = ['inapp', 'webmcp', 'mcp', 'tour', 'test']
const UNKNOWN = (rev: number) => ({
  status: 'refused',
  code: 'unknown_tool',
  message: UNKNOWN_TOOL_MESSAGE,
  rev,
})

describe('callers: per-caller visibility', () => {
  it('lists, describes and runs the tool only for the callers it names', async () => {
    const tm = createTestToolmark()
    tm.register(tool('open'))
    tm.register(tool('desk', { callers: ['mcp', 'test'], run: () => ok('ran') }))
    for (const caller of AGENTS) {
      const shown = caller === 'mcp' || caller === 'test'
      expect(tm.manifest({ caller }).tools.map((t) => t.name)).toEqual(shown ? ['desk', 'open'] : ['open'])
      expect(tm.manifest({ caller, detail: 'full' }).tools.some((t) => t.name === 'desk')).toBe(shown)
      expect(tm.describe('desk', { caller })?.name).toBe(shown ? 'desk' : undefined)
      expect(await tm.call('desk', {}, { caller })).toEqual(shown ? ok('ran') : UNKNOWN(tm.rev))
    }
    // The page itself (human) and the unfiltered manifest see every tool.
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['desk', 'open'])
    expect(await tm.call('desk', {}, { caller: 'human' })).toEqual(ok('ran'))
  })

  it('answers a hidden tool unknown_tool with the current revision, never stale', async () => {
    const tm = createTestToolmark()
    const seen = tm.rev
    tm.register(tool('desk', { callers: ['mcp'] }))
    tm.register(tool('other'))
    expect(tm.rev).toBeGreaterThan(seen)
    expect(await tm.call('desk', {}, { caller: 'inapp', rev: seen })).toEqual(UNKNOWN(tm.rev))
  })

  it('without the option every caller sees the tool (the default is unchanged)', async () => {
    const tm = createTestToolmark()
    tm.register(tool('open'))
    for (const caller of AGENTS) {
      expect(tm.manifest({ caller }).tools.map((t) => t.name)).toEqual(['open'])
      expect(await tm.call('open', {}, { caller })).toEqual(ok())
    }
    expect(tm.info('open')).not.toHaveProperty('callers')
  })

  it('the policy still applies to the callers listed', async () => {
    const tm = createTestToolmark({ policy: { mcp: ['readOnly'] } })
    tm.register(tool('edit', { callers: ['mcp', 'inapp'], hints: { consequential: true } }))
    expect(tm.manifest({ caller: 'mcp' }).tools).toEqual([])
    expect(await tm.call('edit', {}, { caller: 'mcp' })).toMatchObject({ code: 'not_allowed' })
    expect(tm.manifest({ caller: 'inapp' }).tools.map((t) => t.name)).toEqual(['edit'])
  })

  it("the user's approval of an allowed caller's deferred call runs the tool once", async () => {
    const run = vi.fn((input: unknown) => ok(input))
    const tm = createToolmark({ live: true })
    tm.register({ ...createDef(run), callers: ['inapp'] } as ToolDefinition)
    expect(await tm.call('create', { name: 'A' }, { caller: 'webmcp' })).toEqual(UNKNOWN(tm.rev))
    const pending = needs(await tm.call('create', { name: 'A' }, { caller: 'inapp' }))
    expect(tm.pendingConfirmations().map((p) => p.caller)).toEqual(['inapp'])
    expect(await tm.confirmPending(pending.confirmId, { approved: true })).toEqual(ok({ name: 'A' }))
    expect(run).toHaveBeenCalledTimes(1)
    expect(run.mock.calls[0]).toMatchObject([{ name: 'A' }, { caller: 'human' }])
  })

  it('a caller that cannot see the tool never gets a confirmation to approve', async () => {
    const run = vi.fn(() => ok())
    const confirm = vi.fn(() => ({ approved: true as const }))
    const tm = createTestToolmark({ confirm })
    tm.register({ ...createDef(run), callers: ['mcp'] } as ToolDefinition)
    for (const caller of ['inapp', 'webmcp', 'tour', 'test'] as const)
      expect(await tm.call('create', { name: 'A' }, { caller })).toEqual(UNKNOWN(tm.rev))
    expect(confirm).not.toHaveBeenCalled()
    expect(tm.pendingConfirmations()).toEqual([])
    expect(run).not.toHaveBeenCalled()
  })

  it('the confirmation-path check counts only the callers the tool is visible to', () => {
    // No confirm handler: inapp is deferred (a path); mcp confirms inline, so it has none.
    const tm = createToolmark({ live: true, dev: false })
    const errors: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => errors.push(e))
    tm.register(tool('mcpOnly', { callers: ['mcp'], hints: { consequential: true } }))
    expect(errors.map((e) => [e.code, e.tool])).toEqual([['missing_confirm_handler', 'mcpOnly']])
    expect(tm.info('mcpOnly')).toBeUndefined()
    tm.register(tool('inappOnly', { callers: ['inapp'], hints: { consequential: true } }))
    expect(tm.info('inappOnly')?.callers).toEqual(['inapp'])
    expect(errors).toHaveLength(1)
  })

  it('does not warn about callers the tool is hidden from', () => {
    const tm = createToolmark({ live: true, dev: true })
    const warnings: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => warnings.push(e))
    tm.register(tool('inappOnly', { callers: ['inapp'], hints: { consequential: true } }))
    expect(warnings).toEqual([])
    tm.register(tool('both', { callers: ['inapp', 'mcp'], hints: { consequential: true } }))
    expect(warnings.map((w) => w.message)).toEqual([
      'Tool "both" is hidden from mcp: they confirm inline and no confirm handler is set',
    ])
  })

  it('the blocked event says the tool is hidden from that caller', async () => {
    const tm = createTestToolmark()
    const blocked: CallBlocked[] = []
    tm.events.on('blocked', (e) => blocked.push(e))
    tm.register(tool('desk', { callers: ['mcp', 'tour'] }))
    await tm.call('desk', { q: 1 }, { caller: 'webmcp', rev: 0 })
    await tm.call('nothing', {}, { caller: 'webmcp' })
    expect(blocked.map((b) => [b.tool, b.caller, b.reason])).toEqual([
      ['desk', 'webmcp', { code: 'unknown_tool', rev: 0, currentRev: tm.rev, callers: ['mcp', 'tour'] }],
      ['nothing', 'webmcp', { code: 'unknown_tool', rev: undefined, currentRev: tm.rev }],
    ])
    expect(tm.info('desk')).toMatchObject({ visible: true, callers: ['mcp', 'tour'] })
  })

  it.each([
    [[], 'Tool "x": callers must list one or more of inapp, webmcp, mcp, tour, test'],
    [['mcp', 'human'], 'Tool "x": callers must list one or more of inapp, webmcp, mcp, tour, test'],
    [['desktop'], 'Tool "x": callers must list one or more of inapp, webmcp, mcp, tour, test'],
    ['mcp', 'Tool "x": callers must list one or more of inapp, webmcp, mcp, tour, test'],
  ])('refuses callers %j with a TypeError, in production too', (callers, message) => {
    for (const dev of [true, false]) {
      const tm = createTestToolmark({ dev })
      const def = tool('x', { callers: callers as never })
      expect(() => tm.register(def)).toThrow(new TypeError(message))
      expect(tm.info('x')).toBeUndefined()
    }
  })
})
