/**
 * Manifests and `describe`: what each caller sees, sorted, cached per revision, with schemas on
 * request.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { tool } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('manifest and describe', () => {
  it('manifest entries are summaries sorted by name; describe adds inputSchema', () => {
    const tm = createTestToolmark()
    tm.register(tool('b', { title: 'Bee', hints: { readOnly: true, untrustedContent: true } }))
    tm.register(tool('a', { input: z.object({ q: z.string().describe('Keywords') }) }))
    tm.register(tool('B'))
    const m = tm.manifest()
    expect(m.rev).toBe(tm.rev)
    expect(m.tools.map((t) => t.name)).toEqual(['B', 'a', 'b'])
    expect(m.tools[2]).toEqual({
      name: 'b',
      llmName: 'b',
      title: 'Bee',
      description: 'Tool b',
      hints: { readOnly: true, untrustedContent: true },
    })
    expect(m.tools[1]).not.toHaveProperty('inputSchema')
    expect(tm.describe('a')).toMatchObject({
      name: 'a',
      inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'Keywords' } } },
    })
    expect(tm.describe('B')?.inputSchema).toEqual({ type: 'object' })
    const full = tm.manifest({ detail: 'full' })
    expect(full.tools.every((t) => typeof t.inputSchema === 'object')).toBe(true)
  })

  it('describe and manifest respect the caller (policy and missing confirmation path)', () => {
    const tm = createTestToolmark({ policy: { tour: ['readOnly'] } })
    tm.register(tool('read'))
    tm.register(tool('write', { hints: { consequential: true } }))
    expect(tm.manifest({ caller: 'tour' }).tools.map((t) => t.name)).toEqual(['read'])
    expect(tm.describe('write', { caller: 'tour' })).toBeUndefined()
    expect(tm.describe('write', { caller: 'inapp' })?.name).toBe('write')
    expect(tm.describe('write', { caller: 'human' })?.name).toBe('write')
  })
})
