import { describe, expect, it } from 'vitest'
import { modelResult, STRUCTURED_NOTE, UNTRUSTED_NOTE } from '../index.ts'

describe('modelResult', () => {
  const structured = { structured: true as const, hints: {} }

  it("gives a structured tool's ok data with the note, and passes everything else as is", () => {
    expect(modelResult({ status: 'ok', data: { n: 1 } }, structured)).toEqual({
      status: 'ok',
      data: { n: 1 },
      note: STRUCTURED_NOTE,
    })
    expect(modelResult({ status: 'ok' }, structured)).toEqual({ status: 'ok' })
    expect(modelResult({ status: 'error', message: 'Tool failed' }, structured)).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
    expect(modelResult({ status: 'ok', data: 1 }, { hints: {} })).toEqual({ status: 'ok', data: 1 })
    expect(modelResult({ status: 'ok', data: 1 }, undefined)).toEqual({ status: 'ok', data: 1 })
  })

  it('wraps the result of an untrustedContent tool, or when told to', () => {
    const untrusted = { structured: true as const, hints: { untrustedContent: true } }
    expect(modelResult({ status: 'ok', data: 'x' }, untrusted)).toEqual({
      untrustedContent: true,
      note: UNTRUSTED_NOTE,
      result: { status: 'ok', data: 'x', note: STRUCTURED_NOTE },
    })
    expect(modelResult({ status: 'ok', data: 'x' }, undefined, true)).toEqual({
      untrustedContent: true,
      note: UNTRUSTED_NOTE,
      result: { status: 'ok', data: 'x' },
    })
  })

  it('gives the same JSON for the same result on every turn (prompt caching)', () => {
    const a = JSON.stringify(modelResult({ status: 'ok', data: { b: 1, a: 2 } }, structured))
    expect(JSON.stringify(modelResult({ status: 'ok', data: { b: 1, a: 2 } }, structured))).toBe(a)
    expect(a).toBe(`{"status":"ok","data":{"b":1,"a":2},"note":${JSON.stringify(STRUCTURED_NOTE)}}`)
  })
})
