import { afterEach, describe, expect, it, vi } from 'vitest'
import { clock } from '../../clock.ts'
import { Deadlines, type Timed } from '../deadlines.ts'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

function item(deadline: number, log: string[], name: string): Timed {
  return { deadline, tracked: false, expire: () => log.push(name) }
}

describe('Deadlines (one shared timer, lazy deletion)', () => {
  it('expires each due item exactly once, keeps live ones through compaction, and re-arms', async () => {
    vi.useFakeTimers()
    let now = 1000
    vi.spyOn(clock, 'mono').mockImplementation(() => now)
    const d = new Deadlines()
    const log: string[] = []
    const slow = item(now + 500, log, 'slow')
    d.add(slow)
    // Many short-lived items that finish before their deadline (deleted), forcing compactions.
    for (let i = 0; i < 1000; i++) {
      const fast = item(now + 100, log, `fast${i}`)
      d.add(fast)
      d.delete(fast)
    }
    const later = item(now + 800, log, 'later')
    d.add(later)
    // Paused and resumed with a new deadline (ctx.confirm): tracked once, not twice.
    d.delete(later)
    later.deadline = now + 900
    d.add(later)
    now += 500
    await vi.advanceTimersByTimeAsync(500)
    expect(log).toEqual(['slow'])
    now += 400
    await vi.advanceTimersByTimeAsync(400)
    expect(log).toEqual(['slow', 'later'])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a deleted item never expires', async () => {
    vi.useFakeTimers()
    let now = 0
    vi.spyOn(clock, 'mono').mockImplementation(() => now)
    const d = new Deadlines()
    const log: string[] = []
    const a = item(100, log, 'a')
    d.add(a)
    d.delete(a)
    now = 200
    await vi.advanceTimersByTimeAsync(200)
    expect(log).toEqual([])
  })
})
