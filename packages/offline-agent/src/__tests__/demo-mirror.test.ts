import { describe, expect, it } from 'vitest'
import { navigateTool } from '../../../../apps/demo/src/app/tools.ts'
import { createTool, deleteTool, notesTool, searchTool } from '../../../../apps/demo/src/challenges/tools.ts'
import { updateCardTool } from '../../../../apps/demo/src/settings/tools.ts'
import { challengesTools, demoState, settingsTools } from './demo-tools.ts'

/*
 * The planner tests run against demo-tools.ts, which writes the demo's tools out by hand: the
 * titles, descriptions and hints must be the demo's own, or the tests would pass against a page
 * that does not exist.
 */
describe("demo-tools.ts mirrors the demo's real tools", () => {
  const real = [
    navigateTool({} as never),
    searchTool({} as never),
    createTool({} as never),
    deleteTool({ findByName: () => undefined } as never),
    notesTool({} as never),
    updateCardTool({} as never),
  ]
  const fakes = [...challengesTools(demoState()), ...settingsTools(demoState())]
  it.each(real.map((t) => [t.name, t] as const))('%s', (name, tool) => {
    const fake = fakes.find((f) => f.name === name || f.name.endsWith(`.${name}`))!
    expect({ title: fake.title, description: fake.description, hints: fake.hints }).toEqual({
      title: tool.title,
      description: tool.description,
      hints: tool.hints,
    })
  })
})
