/**
 * Call and confirmation ids: `crypto.randomUUID`, else an RFC 4122 v4 UUID from `getRandomValues`,
 * never `Math.random`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { environment } from '../env.ts'
import { newId } from '../ids.ts'
import { createTestToolmark } from '../testing/index.ts'
import { tool } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('ids: crypto.randomUUID, else an RFC 4122 v4 UUID from getRandomValues, never Math.random', () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

  afterEach(() => {
    vi.unstubAllGlobals()
    vi.restoreAllMocks()
  })

  it('falls back to getRandomValues without randomUUID and never calls Math.random', () => {
    const real = globalThis.crypto
    const random = vi.spyOn(Math, 'random')
    const getRandomValues = vi.fn(<T extends ArrayBufferView>(a: T): T => real.getRandomValues(a as never))
    vi.stubGlobal('crypto', { getRandomValues })
    const ids = new Set(Array.from({ length: 50 }, () => newId()))
    expect(ids.size).toBe(50)
    for (const id of ids) expect(id).toMatch(V4)
    expect(getRandomValues).toHaveBeenCalled()
    expect(random).not.toHaveBeenCalled()
  })

  it('throws without Web Crypto rather than using Math.random', () => {
    const random = vi.spyOn(Math, 'random')
    vi.stubGlobal('crypto', undefined)
    expect(() => newId()).toThrow()
    expect(random).not.toHaveBeenCalled()
  })

  it('confirmIds and call ids minted by the registry are v4 UUIDs', async () => {
    const tm = createTestToolmark()
    const callIds: string[] = []
    tm.events.on('call', (e) => callIds.push(e.callId))
    tm.register(tool('w', { hints: { consequential: true } }))
    const r = await tm.call('w', {}, { caller: 'inapp' })
    expect(r.status === 'needs_confirmation' && r.confirmId).toMatch(V4)
    expect(callIds[0]).toMatch(V4)
  })
})
