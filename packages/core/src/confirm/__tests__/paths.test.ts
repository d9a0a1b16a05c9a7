/**
 * Which tools confirm: the registration check, confirmation paths per caller, `requiresConfirmation`
 * and `confirmUnannotated`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDef, OPERATOR, tick } from '../../__tests__/helpers.ts'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { environment } from '../../env.ts'
import { approveAll, createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import { createToolmark } from '../../toolmark.ts'
import type { ToolmarkErrorEvent } from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('registration check and confirmation paths', () => {
  it('missing_confirm_handler only when no allowed non-human caller has a path', () => {
    environment.setIsServer(false)
    const def = createDef()
    // inapp deferred is a path: fine without a handler.
    expect(() => createToolmark({ dev: true }).register(def)).not.toThrow()
    // Only inline callers allowed and no handler: no path.
    expect(() => createToolmark({ dev: true, policy: { inapp: ['readOnly'] } }).register(def)).toThrowError(
      expect.objectContaining({ code: 'missing_confirm_handler' }),
    )
    expect(() => createToolmark({ dev: true, confirmMode: { inapp: 'inline' } }).register(def)).toThrowError(
      expect.objectContaining({ code: 'missing_confirm_handler' }),
    )
    // A handler gives the inline callers a path.
    expect(() =>
      createToolmark({ dev: true, policy: { inapp: ['readOnly'] }, confirm: approveAll }).register(def),
    ).not.toThrow()
    // No allowed caller at all for consequential tools except human: nothing to confirm for, no path.
    expect(() =>
      createToolmark({
        dev: true,
        policy: { inapp: [], webmcp: [], mcp: [], tour: [], test: [] },
      }).register(def),
    ).toThrowError(expect.objectContaining({ code: 'missing_confirm_handler' }))
  })

  it('in production the failed registration is an error event and the tool is not registered', async () => {
    environment.setIsServer(false)
    const tm = createToolmark({ policy: { inapp: ['readOnly'] } })
    const errors: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => errors.push(e))
    tm.register(createDef())
    expect(errors.map((e) => [e.code, e.level, e.tool])).toEqual([
      ['missing_confirm_handler', 'error', 'create'],
    ])
    expect(await tm.call('create', { name: 'A' }, { caller: 'human' })).toMatchObject({
      code: 'unknown_tool',
    })
  })

  it('an inline caller without a handler does not see consequential/destructive tools and is refused not_allowed', async () => {
    environment.setIsServer(false)
    const run = vi.fn(() => ok())
    const tm = createToolmark()
    tm.register(createDef(run))
    tm.register({ name: 'del', description: 'd', hints: { destructive: true }, run })
    for (const caller of ['webmcp', 'mcp', 'tour', 'test'] as const) {
      expect(tm.manifest({ caller }).tools).toEqual([])
      expect(tm.describe('create', { caller })).toBeUndefined()
      expect(await tm.call('del', {}, { caller })).toEqual({
        status: 'refused',
        code: 'not_allowed',
        message: expect.any(String),
      })
    }
    expect(tm.manifest({ caller: 'inapp' }).tools.map((t) => t.name)).toEqual(['create', 'del'])
    expect(run).not.toHaveBeenCalled()
  })
})

describe('requiresConfirmation and confirmUnannotated', () => {
  it('requiresConfirmation(tool, call, caller) adds confirmations per caller; false never skips one', async () => {
    const rule = vi.fn(
      (tool: { name: string }, _call: { input: unknown }, caller: string) =>
        tool.name === 'transfer' && caller === 'mcp',
    )
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler, requiresConfirmation: rule })
    tm.register({ name: 'transfer', description: 'd', hints: { readOnly: true }, run: () => ok('moved') })
    expect(await tm.call('transfer', {}, { caller: 'inapp' })).toEqual(ok('moved'))
    const p = tm.call('transfer', {}, { caller: 'mcp' })
    await tick()
    expect(queue.getPending()).toHaveLength(1)
    queue.reject(queue.getPending()[0]!.confirmId)
    expect(await p).toEqual(OPERATOR)
    expect(rule).toHaveBeenCalledWith(expect.objectContaining({ name: 'transfer' }), { input: {} }, 'mcp')
    const never = createTestToolmark({ requiresConfirmation: () => false })
    never.register({ name: 'del', description: 'd', hints: { destructive: true }, run: () => ok() })
    expect((await never.call('del', {}, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('requiresConfirmation never applies to human callers', async () => {
    const tm = createTestToolmark({ requiresConfirmation: () => true })
    tm.register({ name: 'x', description: 'd', hints: { readOnly: true }, run: () => ok('ran') })
    expect(await tm.call('x', {}, { caller: 'human' })).toEqual(ok('ran'))
  })

  it('confirmUnannotated: a tool with none of readOnly/consequential/destructive asks; untrustedContent alone is unannotated', async () => {
    const tm = createTestToolmark({ confirmUnannotated: true })
    tm.register({ name: 'getUser', description: 'd', run: () => ok() })
    tm.register({ name: 'notes', description: 'd', hints: { untrustedContent: true }, run: () => ok() })
    tm.register({ name: 'read', description: 'd', hints: { readOnly: true }, run: () => ok() })
    expect((await tm.call('getUser', {}, { caller: 'inapp' })).status).toBe('needs_confirmation')
    expect((await tm.call('notes', {}, { caller: 'inapp' })).status).toBe('needs_confirmation')
    expect((await tm.call('read', {}, { caller: 'inapp' })).status).toBe('ok')
  })
})
