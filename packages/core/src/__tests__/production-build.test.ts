import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import type * as Core from '../index.ts'
import type { ToolContext, ToolmarkErrorEvent } from '../types.ts'

/*
 * A production build (`process.env.NODE_ENV === 'production'`, which bundlers inline) compiles the
 * development-only warnings and checks out, even for `createToolmark({ dev: true })`. Everything a
 * caller is answered, and every production error event, keeps its exact code and message.
 */
let core: typeof Core
let environment: typeof import('../env.ts').environment
beforeAll(async () => {
  vi.stubEnv('NODE_ENV', 'production')
  vi.resetModules()
  core = await import('../index.ts')
  environment = (await import('../env.ts')).environment
  environment.setIsServer(false)
})
afterAll(() => {
  environment.setIsServer(undefined)
  vi.unstubAllEnvs()
  vi.resetModules()
})

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0))

function registry(dev: boolean) {
  const tm = core.createToolmark({ dev, budget: 2 })
  const errors: ToolmarkErrorEvent[] = []
  tm.events.on('error', (e) => errors.push(e))
  return { tm, errors }
}

const tool = (name: string, extra: object = {}) => ({
  name,
  description: `Tool ${name}`,
  hints: { readOnly: true },
  run: () => core.ok(),
  ...extra,
})

describe('a production build', () => {
  it('emits no development warnings, even with dev: true', async () => {
    const { tm, errors } = registry(true)
    tm.register(tool('plain', { hints: {} })) // unannotated_tool in development
    tm.register(tool('write', { hints: { consequential: true } })) // missing_confirm_handler warning
    tm.register(
      tool('mid', {
        run: async (_: unknown, ctx: ToolContext) => core.ok(await ctx.confirm({ summary: 's' })),
      }),
    ) // 3 visible tools > budget 2
    tm.register(tool('out', { output: z.object({ n: z.number() }), run: () => core.ok({ n: 'x' }) }))
    await tick()
    expect(await tm.call('mid', {}, { caller: 'inapp' })).toEqual(
      core.ok({ approved: false, reason: 'confirmation_unavailable' }),
    )
    // The output check is development-only: the result is returned as it is, with no output_invalid.
    expect(await tm.call('out', {}, { caller: 'inapp' })).toEqual(core.ok({ n: 'x' }))
    expect(errors).toEqual([])
  })

  it('still throws on misconfiguration with dev: true, with the same code and message', () => {
    const { tm } = registry(true)
    tm.register(tool('a'))
    expect(() => tm.register(tool('a'))).toThrow(
      expect.objectContaining({ code: 'duplicate_name', message: 'A tool named "a" is already registered' }),
    )
    expect(() => tm.register(tool('bad name'))).toThrow(expect.objectContaining({ code: 'invalid_name' }))
  })

  it('reports misconfiguration and answers callers exactly as in development', async () => {
    const { tm, errors } = registry(false)
    tm.register(tool('a'))
    tm.register(tool('a'))
    expect(errors.map((e) => [e.code, e.message, e.level])).toEqual([
      ['duplicate_name', 'A tool named "a" is already registered', 'error'],
    ])
    tm.register(tool('write', { hints: { consequential: true } }))
    expect(await tm.call('nope', {}, { caller: 'inapp' })).toEqual({
      status: 'refused',
      code: 'unknown_tool',
      message: core.REFUSED_MESSAGES.unknown_tool,
      rev: tm.rev,
    })
    expect(await tm.call('write', {}, { caller: 'webmcp' })).toMatchObject({
      status: 'refused',
      code: 'not_allowed',
    })
    const asked = await tm.call('write', {}, { caller: 'inapp' })
    expect(asked).toMatchObject({ status: 'needs_confirmation', summary: 'write' })
  })
})
