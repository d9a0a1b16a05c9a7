/**
 * Output validation: `output` schemas are checked in development only; a mismatch is an event, the
 * result is kept.
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

describe('output validation (development only)', () => {
  it('dev emits output_invalid and returns the result unchanged; prod does not validate', async () => {
    const def = tool('o', { output: z.object({ n: z.number() }), run: () => ok({ n: 'x' }) as never })
    const dev = createTestToolmark()
    const devErrors: ToolmarkErrorEvent[] = []
    dev.events.on('error', (e) => devErrors.push(e))
    dev.register(def)
    expect(await dev.call('o', {}, { caller: 'test' })).toEqual(ok({ n: 'x' }))
    expect(devErrors.map((e) => [e.code, e.tool])).toEqual([['output_invalid', 'o']])
    const { tm, errors } = prodToolmark()
    tm.register(def)
    expect(await tm.call('o', {}, { caller: 'test' })).toEqual(ok({ n: 'x' }))
    expect(errors).toEqual([])
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
