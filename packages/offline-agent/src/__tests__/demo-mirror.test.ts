import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { navigateTool } from '../../../../apps/demo/src/app/tools.ts'
import { createTool, deleteTool, notesTool, searchTool } from '../../../../apps/demo/src/challenges/tools.ts'
import { updateCardTool } from '../../../../apps/demo/src/settings/tools.ts'
import {
  challengesTools,
  demoState,
  NEXT_DEMO_NAVIGATION,
  NEXT_GUIDE_PAGES,
  nextGuideThemeTool,
  settingsTools,
} from './demo-tools.ts'

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

/** A source file of the repository, with string concatenations across lines joined ('a ' +\n 'b' → 'a b'). */
async function source(path: string): Promise<string> {
  const text = await readFile(new URL(`../../../../${path}`, import.meta.url), 'utf8')
  return text.replace(/'\s*\+\s*\n\s*'/g, '')
}

/*
 * The Next guide's app and the Next demo declare their tools inside React components: the tests'
 * copies are checked against the components' source text.
 */
describe("demo-tools.ts mirrors the Next guide's and the Next demo's tools", () => {
  it("the guide's settings.setTheme (packages/next/examples, compiled into docs/framework/next.md)", async () => {
    const page = await source('packages/next/examples/app/settings/page.tsx')
    const tool = nextGuideThemeTool()
    expect(page).toContain("useRouteScope('settings')")
    expect(page).toContain("name: 'setTheme'")
    expect(page).toContain(`description: '${tool.description}'`)
    expect(page).toContain("z.object({ theme: z.enum(['light', 'dark']) })")
    expect(page).toContain('hints: { consequential: true }')
    expect(page).not.toContain('title:')
    expect(tool.inputSchema).toMatchObject({ properties: { theme: { enum: ['light', 'dark'] } } })
  })

  it("the guide's navigation pages", async () => {
    const providers = await source('packages/next/examples/app/providers.tsx')
    const pages = Object.entries(NEXT_GUIDE_PAGES)
      .map(([k, v]) => `${k}: '${v}'`)
      .join(', ')
    expect(providers).toContain(`useNavigationTool({ pages: { ${pages} } })`)
  })

  it("the Next demo's app.navigate: its pages and description", async () => {
    const providers = await source('apps/next-demo/src/Providers.tsx')
    const pages = Object.entries(NEXT_DEMO_NAVIGATION.pages)
      .map(([k, v]) => `${k}: '${v}'`)
      .join(', ')
    expect(providers).toContain(`pages: { ${pages} }`)
    expect(providers).toContain(`'${NEXT_DEMO_NAVIGATION.description}'`)
  })
})
