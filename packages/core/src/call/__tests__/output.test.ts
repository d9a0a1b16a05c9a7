/**
 * Output validation: a tool with an `output` schema has every `ok` result checked against it, in
 * every build; data that does not match answers `error` and emits `output_invalid`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { prodToolmark, tool } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { ToolmarkErrorEvent } from '../../types.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

const MISMATCH = { status: 'error', message: "Output does not match the tool's output schema" }

describe('output validation (every build)', () => {
  it('answers error and emits output_invalid in development and in production alike', async () => {
    const def = tool('o', { output: z.object({ n: z.number() }), run: () => ok({ n: 'x' }) as never })
    const dev = createTestToolmark()
    const devErrors: ToolmarkErrorEvent[] = []
    dev.events.on('error', (e) => devErrors.push(e))
    dev.register(def)
    expect(await dev.call('o', {}, { caller: 'test' })).toEqual(MISMATCH)
    expect(devErrors.map((e) => [e.code, e.tool])).toEqual([['output_invalid', 'o']])
    const { tm, errors } = prodToolmark()
    tm.register(def)
    expect(await tm.call('o', {}, { caller: 'test' })).toEqual(MISMATCH)
    expect(errors.map((e) => [e.code, e.tool])).toEqual([['output_invalid', 'o']])
  })

  it('returns conforming data as the tool gave it, and leaves other statuses alone', async () => {
    const { tm, errors } = prodToolmark()
    tm.register(tool('good', { output: z.object({ n: z.number() }), run: () => ok({ n: 1 }) }))
    tm.register(
      tool('bad', {
        output: z.object({ n: z.number() }),
        run: () => ({ status: 'refused', code: 'busy', message: 'later' }) as never,
      }),
    )
    expect(await tm.call('good', {}, { caller: 'test' })).toEqual(ok({ n: 1 }))
    expect(await tm.call('bad', {}, { caller: 'test' })).toEqual({
      status: 'refused',
      code: 'busy',
      message: 'later',
    })
    expect(errors).toEqual([])
  })

  it('awaits an async validator before answering', async () => {
    const { tm } = prodToolmark()
    const output = z.object({ n: z.number() }).refine(async (v) => v.n > 0)
    let n = 1
    tm.register(tool('a', { output, run: () => ok({ n }) }))
    expect(await tm.call('a', {}, { caller: 'test' })).toEqual(ok({ n: 1 }))
    n = -1
    expect(await tm.call('a', {}, { caller: 'test' })).toEqual(MISMATCH)
  })

  it('answers Tool failed when the validator throws', async () => {
    const { tm, errors } = prodToolmark()
    const output = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: () => {
          throw new Error('boom')
        },
      },
    }
    tm.register(tool('t', { output, run: () => ok({}) }))
    expect(await tm.call('t', {}, { caller: 'test' })).toEqual({ status: 'error', message: 'Tool failed' })
    expect(errors.map((e) => e.code)).toEqual(['tool_threw'])
  })

  it('marks the manifest entry of a tool with an output schema structured, and only that one', () => {
    const { tm } = prodToolmark()
    tm.register(tool('with', { output: z.object({ n: z.number() }), run: () => ok({ n: 1 }) }))
    tm.register(tool('without'))
    const entries = Object.fromEntries(tm.manifest({ caller: 'inapp' }).tools.map((t) => [t.name, t]))
    expect(entries.with?.structured).toBe(true)
    expect('structured' in entries.without!).toBe(false)
    expect(tm.describe('with', { caller: 'inapp' })).toMatchObject({
      structured: true,
      outputSchema: { type: 'object' },
    })
  })
})
