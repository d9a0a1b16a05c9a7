import { describe, expect, it } from 'vitest'
import { verdict } from '../verdict.ts'

describe('verdict', () => {
  it('passes when every failure is listed and nothing listed passes', () => {
    const v = verdict(
      [
        { id: 'a', passed: true },
        { id: 'b', passed: false, error: 'x' },
      ],
      { b: 'known' },
    )
    expect(v).toEqual({ passed: 1, failed: 1, expected: 1, problems: [] })
  })

  it('fails on a failure the list does not name', () => {
    expect(verdict([{ id: 'a', passed: false, error: 'boom' }], {}).problems).toEqual(['a failed: boom'])
  })

  it('fails on a listed scenario that passes, so lists only shrink', () => {
    expect(verdict([{ id: 'a', passed: true }], { a: 'known' }).problems).toEqual([
      'a passes but is listed as an expected failure: remove it',
    ])
  })

  it('fails on a listed id that names no scenario', () => {
    expect(verdict([], { gone: 'known' }).problems).toEqual([
      'gone is listed as an expected failure but no such scenario ran',
    ])
  })
})
