import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'
import { createTourRunner, type TourView } from '../runner.ts'

describe('tour runner and callers', () => {
  it('a step whose tool is hidden from tours never shows: the tour ends tool_gone', async () => {
    const tm = createTestToolmark()
    tm.register({ name: 'notes.list', description: 'List', hints: { readOnly: true }, run: () => ok() })
    tm.register({
      name: 'notes.export',
      description: 'Export',
      hints: { readOnly: true },
      callers: ['inapp', 'mcp'],
      run: () => ok(),
    })
    const views: TourView[] = []
    const runner = createTourRunner(tm, {
      tours: [
        {
          id: 'notes',
          title: 'Notes',
          description: 'How notes work',
          steps: [
            { tool: 'notes.list', text: 'Your notes', showOnly: true },
            { tool: 'notes.export', text: 'Export them', showOnly: true },
          ],
        },
      ],
      overlay: { show: (v) => views.push(v), close: () => {} },
      registerStartTool: false,
      waitForToolMs: 50,
    })
    const done = runner.start('notes')
    await new Promise((r) => setTimeout(r, 0))
    expect(views.map((v) => v.step.tool)).toEqual(['notes.list'])
    views.at(-1)!.next()
    expect(await done).toEqual({ status: 'tool_gone', tour: 'notes', step: 1, tool: 'notes.export' })
    expect(views.map((v) => v.step.tool)).toEqual(['notes.list'])
    runner.dispose()
  })
})
