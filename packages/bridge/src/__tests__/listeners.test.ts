import { describe, expect, it } from 'vitest'
import { listeners } from '../listeners.ts'

describe('listeners', () => {
  it('calls the handlers in registration order; removing one is idempotent', () => {
    const set = listeners<number>()
    const seen: string[] = []
    const offA = set.add((n) => seen.push(`a${n}`))
    set.add((n) => seen.push(`b${n}`))
    set.emit(1)
    offA()
    offA()
    set.emit(2)
    expect(seen).toEqual(['a1', 'b1', 'b2'])
  })

  it('an emit reaches the handlers registered when it started, not ones added or removed meanwhile', () => {
    const set = listeners<number>()
    const seen: string[] = []
    let offB = (): void => {}
    set.add((n) => {
      seen.push(`a${n}`)
      set.add((m) => seen.push(`late${m}`))
      offB()
    })
    offB = set.add((n) => seen.push(`b${n}`))
    set.emit(1)
    expect(seen).toEqual(['a1', 'b1'])
  })

  it('without onThrow a throw stops the emit and reaches the caller; with it the other handlers still run', () => {
    const set = listeners<number>()
    const seen: number[] = []
    const boom = new Error('boom')
    set.add(() => {
      throw boom
    })
    set.add((n) => seen.push(n))
    expect(() => set.emit(1)).toThrow(boom)
    expect(seen).toEqual([])
    const caught: unknown[] = []
    set.emit(2, (error) => caught.push(error))
    expect(caught).toEqual([boom])
    expect(seen).toEqual([2])
  })

  it('clear unregisters every handler', () => {
    const set = listeners<number>()
    const seen: number[] = []
    set.add((n) => seen.push(n))
    set.clear()
    set.emit(1)
    expect(seen).toEqual([])
  })
})
