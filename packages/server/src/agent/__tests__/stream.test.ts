import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { heldWords, TextStream } from '../stream.ts'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** Streams `chunks` (a flush after each) and returns what was published. */
function streamed(chunks: string[], secrets: string[] = [], held: string[] = []): string[] {
  const out: string[] = []
  const stream = new TextStream({ publish: (d) => out.push(d), secrets: () => secrets, held, intervalMs: 0 })
  for (const chunk of chunks) {
    stream.push(chunk)
    vi.runAllTimers()
  }
  stream.end()
  return out
}

describe('TextStream', () => {
  const text =
    'Your card 4242 4242 4242 4242 is saved; the CVC is 987 and password: hunter2 as asked. Done now.'

  it('never sends a card number, code or password, wherever the deltas split them', () => {
    for (let a = 1; a < text.length; a++) {
      for (const b of [a + 1, a + 3, a + 7]) {
        if (b >= text.length) continue
        const sent = streamed([text.slice(0, a), text.slice(a, b), text.slice(b)]).join('')
        expect(sent).not.toMatch(/4242 4242|42424242|987|hunter2|\d{5}/)
        expect(
          `Your card **** 4242 is saved; the CVC is *** and password: *** as asked. Done now.`.startsWith(
            sent,
          ),
        ).toBe(true)
      }
    }
  })

  it('sends the text word by word, holding back the last word, and a value known to be secret not at all', () => {
    expect(streamed(['Paid with the ', 'memo zq7-', 'k9 and more words'], ['zq7-k9']).join('')).toBe(
      'Paid with the memo [redacted] and more ',
    )
    expect(streamed(['Paid with the memo ', 'zq7-k9 and ', 'more words'], [], ['zq7-k9']).join('')).toBe(
      'Paid with the memo ',
    )
  })

  it('coalesces: one delta per interval however many tokens came', () => {
    const out: string[] = []
    const stream = new TextStream({ publish: (d) => out.push(d), secrets: () => [], intervalMs: 50 })
    for (let i = 0; i < 200; i++) stream.push('word ')
    vi.advanceTimersByTime(60)
    for (let i = 0; i < 200; i++) stream.push('word ')
    vi.advanceTimersByTime(60)
    stream.end()
    expect(out.length).toBeLessThanOrEqual(3)
    expect(out.join('')).toBe('word '.repeat(400))
  })

  it('holds the words of the user message that could be a value (digits or symbols)', () => {
    expect(heldWords('pay with memo zq7-k9, pin 7395 and the blue card!')).toEqual(['zq7-k9', '7395'])
  })
})
