import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TextStream } from '../stream.ts'

/*
 * Many replies streaming at once share one flush timer: the process wakes once per interval, not once per
 * stream, and each stream still sends at most one delta per interval and its waiting text within two.
 */

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** A word without digits for `n` (a trailing number is held back as a card number may still grow). */
const word = (n: number): string => `w${n.toString().replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!)}`

/** `count` streams of `intervalMs`, each with the deltas it published and the time of each. */
function streams(count: number, intervalMs = 50) {
  return Array.from({ length: count }, () => {
    const sent: Array<{ at: number; delta: string }> = []
    const stream = new TextStream({
      publish: (delta) => sent.push({ at: Date.now(), delta }),
      secrets: () => [],
      intervalMs,
    })
    return { stream, sent }
  })
}

describe('TextStream flush clock', () => {
  it('sixteen streams waiting for their next delta hold one timer between them', () => {
    const all = streams(16)
    for (let step = 0; step < 40; step++) {
      for (const { stream } of all) stream.push(`${word(step)} `)
      expect(vi.getTimerCount()).toBeLessThanOrEqual(1)
      vi.advanceTimersByTime(7)
    }
    vi.advanceTimersByTime(100)
    for (const { stream } of all) stream.end()
    expect(vi.getTimerCount()).toBe(0)
    for (const { sent } of all) {
      expect(sent.map((s) => s.delta).join('')).toMatch(new RegExp(`^${word(0)} ${word(1)} .* ${word(39)} $`))
    }
  })

  it('each stream sends at most one delta per interval, and its waiting text within two intervals', () => {
    const all = streams(3)
    // The streams start 20 ms apart: one clock serves them all.
    for (let t = 0; t < 400; t += 2) {
      for (const [i, { stream }] of all.entries()) if (t >= i * 20) stream.push(`${word(t)} `)
      vi.advanceTimersByTime(2)
    }
    vi.advanceTimersByTime(100)
    for (const { stream, sent } of all) {
      stream.end()
      for (let k = 1; k < sent.length; k++) expect(sent[k]!.at - sent[k - 1]!.at).toBeGreaterThanOrEqual(49)
      expect(sent.map((s) => s.delta).join('')).toMatch(new RegExp(` ${word(398)} $`))
    }
    // A lone stream's last words go out when its interval is over, though no more text comes.
    const [lone] = streams(1)
    lone!.stream.push('first ')
    lone!.stream.push('second ')
    expect(lone!.sent.map((s) => s.delta)).toEqual(['first '])
    vi.advanceTimersByTime(50)
    expect(lone!.sent.map((s) => s.delta)).toEqual(['first ', 'second '])
    lone!.stream.end()
  })
})
