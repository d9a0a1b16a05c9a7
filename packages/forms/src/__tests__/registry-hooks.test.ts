import type { ToolmarkErrorEvent } from '@toolmark/core'
import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'

// The three registry hooks the form helpers use, on a plain tool: changes(), snapshot() inline, mode.

describe('registry hooks for form tools', () => {
  it("changes(input) fills the card's and needs_confirmation's changes, redacted at sensitivePaths", async () => {
    const tm = createTestToolmark({ confirmMode: { test: 'inline' } })
    const seen: unknown[] = []
    tm.register({
      name: 'save',
      description: 'd',
      hints: { consequential: true },
      sensitivePaths: ['pin'],
      changes: () => [
        { path: 'title', before: 'a', after: 'b' },
        { path: 'pin', after: 'pin-canary-secret' },
      ],
      run: () => ok(),
    })
    tm.events.on('confirm', (e) => seen.push(e))
    const r = await tm.call('save', {}, { caller: 'inapp' })
    expect(r).toMatchObject({
      changes: [
        { path: 'title', before: 'a', after: 'b' },
        { path: 'pin', after: '[redacted]' },
      ],
    })
    await tm.call('save', {}, { caller: 'test' })
    expect(JSON.stringify(seen)).not.toContain('pin-canary-secret')
    expect(JSON.stringify(seen)).toContain('"path":"title","before":"a","after":"b"')
  })

  it('a changes() that throws is error "Tool failed" with a tool_threw event; the tool does not run', async () => {
    const tm = createTestToolmark({ dev: false })
    const errors: ToolmarkErrorEvent[] = []
    tm.events.on('error', (e) => errors.push(e))
    let ran = false
    tm.register({
      name: 'save',
      description: 'd',
      hints: { consequential: true },
      changes: () => {
        throw new Error('boom')
      },
      run: () => {
        ran = true
        return ok()
      },
    })
    expect(await tm.call('save', {}, { caller: 'inapp' })).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
    expect(await tm.call('save', {}, { caller: 'test' })).toEqual({ status: 'error', message: 'Tool failed' })
    expect(errors.map((e) => e.code)).toEqual(['tool_threw', 'tool_threw'])
    expect(ran).toBe(false)
  })

  it('an inline approval after snapshot() changed is refused stale; unchanged, it runs', async () => {
    let value = 1
    let change = false
    const tm = createTestToolmark({
      confirm: () => {
        if (change) value++
        return { approved: true }
      },
    })
    let runs = 0
    tm.register({
      name: 'save',
      description: 'd',
      hints: { consequential: true },
      snapshot: () => value,
      run: () => {
        runs++
        return ok()
      },
    })
    change = true
    expect(await tm.call('save', {}, { caller: 'mcp' })).toEqual({
      status: 'refused',
      code: 'stale',
      message: 'Form changed since confirmation was requested',
    })
    change = false
    expect(await tm.call('save', {}, { caller: 'mcp' })).toEqual({ status: 'ok' })
    expect(runs).toBe(1)
  })

  it("mode: 'stepwise' reaches the manifest summary and info; other values are left out", () => {
    const tm = createTestToolmark()
    tm.register({ name: 'a', description: 'd', hints: { readOnly: true }, mode: 'stepwise', run: () => ok() })
    tm.register({ name: 'b', description: 'd', hints: { readOnly: true }, run: () => ok() })
    expect(tm.manifest().tools.map((t) => t.mode)).toEqual(['stepwise', undefined])
    expect(tm.describe('a')?.mode).toBe('stepwise')
    expect(tm.info('a')?.mode).toBe('stepwise')
  })
})
