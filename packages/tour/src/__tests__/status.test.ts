import { type ConsumerStatus, ok, type Toolmark } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'
import { createTourRunner, type TourView } from '../runner.ts'

/** Waits for queued microtasks and one turn of timers. */
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0))

/** The status the runner published for inspectors, read as another consumer would. */
function statusOf(tm: Toolmark): ConsumerStatus | undefined {
  let status: ConsumerStatus | undefined
  tm.use((host) => {
    status = host.statuses().tour
    return undefined
  })()
  return status
}

describe('tour runner status', () => {
  it('publishes idle with its tours, the running tour and step, and withdraws it on dispose', async () => {
    const tm = createTestToolmark()
    tm.register({ name: 'notes.list', description: 'List', hints: { readOnly: true }, run: () => ok() })
    const views: TourView[] = []
    const runner = createTourRunner(tm, {
      tours: [
        {
          id: 'notes',
          title: 'Notes',
          description: 'How notes work',
          steps: [
            { tool: 'notes.list', text: 'Your notes', showOnly: true },
            { tool: 'notes.list', text: 'Again', showOnly: true },
          ],
        },
      ],
      overlay: { show: (v) => views.push(v), close: () => {} },
      registerStartTool: false,
    })
    expect(statusOf(tm)).toEqual({ state: 'idle', tours: ['notes'] })
    const done = runner.start('notes')
    await tick()
    expect(statusOf(tm)).toEqual({ state: 'running', tour: 'notes', step: 1, steps: 2 })
    views.at(-1)!.next()
    await tick()
    expect(statusOf(tm)).toEqual({ state: 'running', tour: 'notes', step: 2, steps: 2 })
    runner.exit()
    expect(await done).toEqual({ status: 'exited', tour: 'notes', step: 1 })
    expect(statusOf(tm)).toEqual({ state: 'idle', tours: ['notes'] })
    runner.dispose()
    expect(statusOf(tm)).toBeUndefined()
  })
})
