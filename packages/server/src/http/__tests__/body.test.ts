import { describe, expect, it } from 'vitest'
import { DRAIN_BYTES, readLimited } from '../body.ts'

/** A POST whose body comes in `chunks` with no declared length (as a chunked upload does). */
function streamed(chunks: string[]): { request: Request; pulled: () => number } {
  let pulled = 0
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[pulled++]
      if (next === undefined) controller.close()
      else controller.enqueue(encoder.encode(next))
    },
  })
  const request = new Request('http://x/', { method: 'POST', body, duplex: 'half' } as RequestInit)
  return { request, pulled: () => pulled }
}

describe('readLimited', () => {
  it('reads a body of declared length within the limit, counting bytes, not characters', async () => {
    const text = 'é'.repeat(50) // 100 bytes
    const post = () =>
      new Request('http://x/', { method: 'POST', body: text, headers: { 'content-length': '100' } })
    expect(await readLimited(post(), 100)).toBe(text)
    expect(await readLimited(post(), 99)).toBeUndefined()
    // A body longer than its declared length (a runtime that does not hold the client to it) is still refused.
    const lying = new Request('http://x/', {
      method: 'POST',
      body: text,
      headers: { 'content-length': '60' },
    })
    expect(await readLimited(lying, 60)).toBeUndefined()
  })

  it('refuses a declared length far over the limit without reading the body', async () => {
    const { request, pulled } = streamed(['x'.repeat(10)])
    request.headers.set('content-length', String(10 + DRAIN_BYTES + 1))
    expect(await readLimited(request, 10 - 1)).toBeUndefined()
    expect(pulled()).toBe(0)
  })

  it('reads a body of unknown length up to the limit, and stops reading past the drain allowance', async () => {
    expect(await readLimited(streamed(['ab', 'cd']).request, 4)).toBe('abcd')
    expect(await readLimited(streamed(['ab', 'cde']).request, 4)).toBeUndefined()
    const chunk = 'x'.repeat(DRAIN_BYTES / 4)
    const { request, pulled } = streamed(Array.from({ length: 100 }, () => chunk))
    expect(await readLimited(request, 10)).toBeUndefined()
    expect(pulled()).toBeLessThan(10)
  })

  it('reads an empty body as an empty string', async () => {
    expect(await readLimited(new Request('http://x/', { method: 'POST' }), 10)).toBe('')
  })
})
