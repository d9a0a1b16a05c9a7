/**
 * Misconfiguration codes: each throws `ToolmarkError` in development and is an `error` event in
 * production.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { environment } from '../env.ts'
import { ToolmarkError } from '../errors.ts'
import { createTestToolmark } from '../testing/index.ts'
import { ok } from '../tool/result.ts'
import { createToolmark } from '../toolmark.ts'
import type { ToolContext, Toolmark, ToolmarkErrorEvent, ToolmarkOptions } from '../types.ts'
import { codeOf, prodToolmark, tick, tool } from './helpers.ts'

const micro = (): Promise<void> => Promise.resolve()

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('dev vs production for each misconfiguration code', () => {
  const noConverter: StandardSchemaV1 = {
    '~standard': { version: 1, vendor: 'plain', validate: (value) => ({ value }) },
  }
  const cases: Array<[string, ToolmarkOptions, (tm: Toolmark) => void]> = [
    [
      'duplicate_name',
      {},
      (tm) => {
        tm.register(tool('x'))
        tm.register(tool('x'))
      },
    ],
    ['invalid_name', {}, (tm) => tm.register(tool('bad name'))],
    ['invalid_scope', {}, (tm) => tm.register(tool('x'), { scope: createTestToolmark().scope('s') })],
    [
      'scope_disposed',
      {},
      (tm) => {
        const s = tm.scope('s')
        s.dispose()
        s.register(tool('x'))
      },
    ],
    [
      'missing_confirm_handler',
      { confirmMode: { inapp: 'inline' } },
      (tm) => tm.register(tool('x', { hints: { consequential: true } })),
    ],
    ['schema_conversion_failed', {}, (tm) => tm.register(tool('x', { input: noConverter }))],
  ]

  it.each(cases)(
    '%s: dev throws ToolmarkError with the code; prod emits an error event',
    (code, opts, act) => {
      // createTestToolmark installs approveAll; missing_confirm_handler needs a registry without a handler.
      const noHandler = code === 'missing_confirm_handler'
      const devTm = noHandler ? devWithoutHandler(opts) : createTestToolmark(opts)
      let thrown: unknown
      try {
        act(devTm)
      } catch (err) {
        thrown = err
      }
      expect(thrown).toBeInstanceOf(ToolmarkError)
      expect((thrown as ToolmarkError).code).toBe(code)
      const prodTm = noHandler ? prodWithoutHandler(opts) : prodToolmark(opts)
      expect(() => act(prodTm.tm)).not.toThrow()
      expect(prodTm.errors.map((e) => [e.code, e.level])).toContainEqual([code, 'error'])
    },
  )

  it('invalid_policy (policy.human, unknown hint class, unknown caller): dev throws at creation, prod reports on the next microtask', async () => {
    for (const policy of [{ human: ['readOnly'] }, { inapp: ['readOnly', 'sneaky'] }, { robot: [] }]) {
      expect(codeOf(() => createTestToolmark({ policy: policy as never }))).toBe('invalid_policy')
      const tm = createTestToolmark({ dev: false, policy: policy as never })
      const errors: string[] = []
      tm.events.on('error', (e) => errors.push(e.code))
      await micro()
      expect(errors).toEqual(['invalid_policy'])
    }
  })

  it('invalid_confirm_mode (webmcp/mcp/tour/human or an unknown mode): dev throws, prod reports and ignores it', async () => {
    for (const confirmMode of [
      { webmcp: 'deferred' },
      { mcp: 'inline' },
      { tour: 'deferred' },
      { human: 'inline' },
      { inapp: 'later' },
    ]) {
      expect(codeOf(() => createTestToolmark({ confirmMode: confirmMode as never }))).toBe(
        'invalid_confirm_mode',
      )
    }
    const tm = createTestToolmark({ dev: false, confirmMode: { webmcp: 'deferred' } as never })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    await micro()
    expect(errors).toEqual(['invalid_confirm_mode'])
    tm.register(tool('w', { hints: { consequential: true }, run: () => ok('ran') }))
    expect(await tm.call('w', {}, { caller: 'webmcp' })).toEqual(ok('ran'))
  })

  it('warnings are development-only events with level warning, never thrown', async () => {
    const collect = (tm: Toolmark): ToolmarkErrorEvent[] => {
      const out: ToolmarkErrorEvent[] = []
      tm.events.on('error', (e) => out.push(e))
      return out
    }
    for (const dev of [true, false]) {
      environment.setIsServer(false)
      const tm = createToolmark({ dev, budget: 2 })
      const events = collect(tm)
      tm.register(tool('plain', { hints: {} })) // unannotated_tool
      tm.register(tool('write', { hints: { consequential: true } })) // missing_confirm_handler (inline callers)
      tm.register(
        tool('mid', {
          run: async (_: unknown, ctx: ToolContext) => ok(await ctx.confirm({ summary: 's' })),
        }),
      ) // 3 visible tools > budget 2
      await tick()
      expect(await tm.call('mid', {}, { caller: 'inapp' })).toEqual(
        ok({ approved: false, reason: 'confirmation_unavailable' }),
      )
      if (dev) {
        expect(events.map((e) => [e.code, e.level])).toEqual([
          ['unannotated_tool', 'warning'],
          ['missing_confirm_handler', 'warning'],
          ['tool_budget_exceeded', 'warning'],
          ['ctx_confirm_unavailable', 'warning'],
        ])
      } else {
        expect(events).toEqual([])
      }
    }
  })

  it('tool_budget_exceeded: 40 visible tools are fine, 41 warn once per revision', async () => {
    const tm = createTestToolmark()
    const warnings: number[] = []
    tm.events.on('error', (e) => e.code === 'tool_budget_exceeded' && warnings.push(tm.rev))
    for (let i = 0; i < 40; i++) tm.register(tool(`t${i}`))
    await tick()
    expect(warnings).toEqual([])
    tm.register(tool('t40'))
    tm.register(tool('t41'))
    await tick()
    expect(warnings).toHaveLength(1)
    tm.register(tool('t42'))
    await tick()
    expect(warnings).toHaveLength(2)
    // Hidden tools do not count.
    const hidden = createTestToolmark()
    const hiddenWarnings: string[] = []
    hidden.events.on('error', (e) => hiddenWarnings.push(e.code))
    const s = hidden.scope('off', { when: false })
    for (let i = 0; i < 41; i++) s.register(tool(`t${i}`))
    await tick()
    expect(hiddenWarnings).toEqual([])
  })
})

function devWithoutHandler(options: ToolmarkOptions): Toolmark {
  environment.setIsServer(false)
  return createToolmark({ dev: true, ...options })
}

function prodWithoutHandler(options: ToolmarkOptions): { tm: Toolmark; errors: ToolmarkErrorEvent[] } {
  environment.setIsServer(false)
  const tm = createToolmark({ dev: false, ...options })
  const errors: ToolmarkErrorEvent[] = []
  tm.events.on('error', (e) => errors.push(e))
  return { tm, errors }
}
