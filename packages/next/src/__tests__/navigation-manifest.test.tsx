import type { Toolmark } from '@toolmark/core'
import { useToolmark } from '@toolmark/react'
import { type ReactNode, StrictMode, startTransition, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RouteScope, ToolmarkProvider, useRouteScope, useRouteTool } from '../index.ts'
import { NextRoute, resetRoute } from './router.tsx'

// React schedules work as in a browser here (no `act`): passive effects and the re-render they
// cause run in tasks of their own, so a manifest published between them would be seen.
const flags = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean | undefined }
let wasAct: boolean | undefined
beforeEach(() => {
  resetRoute()
  wasAct = flags.IS_REACT_ACT_ENVIRONMENT
  flags.IS_REACT_ACT_ENVIRONMENT = false
})
afterEach(() => {
  flags.IS_REACT_ACT_ENVIRONMENT = wasAct
})

function Tool({ name }: { name: string }): null {
  useRouteTool({ name, description: `Tool ${name}`, hints: { readOnly: true }, run: () => undefined })
  return null
}

/** A page that owns its scope through the hook and registers into it (as the Next docs' example). */
function SettingsPage(): null {
  const scope = useRouteScope('settings')
  useRouteTool(
    { name: 'setTheme', description: 'Theme', hints: { readOnly: true }, run: () => undefined },
    { scope },
  )
  return null
}

const PAGES: Record<string, () => ReactNode> = {
  challenges: () => (
    <RouteScope name="challenges">
      <Tool name="search" />
      <Tool name="create" />
    </RouteScope>
  ),
  settings: () => <SettingsPage />,
}

let navigate: (page: string) => void = () => {}
let tm: Toolmark | undefined
function App(): ReactNode {
  const [page, setPage] = useState('challenges')
  navigate = (next) => startTransition(() => setPage(next))
  tm = useToolmark()
  const Page = PAGES[page]!
  return (
    <>
      <RouteScope name="app" params={[]}>
        <Tool name="navigate" />
      </RouteScope>
      <Page key={page} />
    </>
  )
}

const names = (registry: Toolmark): string[] =>
  registry
    .manifest()
    .tools.map((t) => t.name)
    .sort()

async function until(what: string, predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  if (!predicate()) throw new Error(`${what} not reached`)
}

describe.each([false, true])('a navigation publishes one manifest (StrictMode %s)', (strict) => {
  it("with the new page's tools, never the layout's alone", async () => {
    const container = document.createElement('div')
    const root = createRoot(container)
    const ui = (
      <NextRoute>
        <ToolmarkProvider>
          <App />
        </ToolmarkProvider>
      </NextRoute>
    )
    root.render(strict ? <StrictMode>{ui}</StrictMode> : ui)
    await until('the first page', () => tm !== undefined && names(tm).includes('challenges.search'))
    const registry = tm!
    const published: string[][] = []
    const off = registry.subscribe(() => published.push(names(registry)))
    const pages = ['settings', 'challenges', 'settings', 'challenges']
    for (const page of pages) {
      published.length = 0
      navigate(page)
      const tool = page === 'settings' ? 'settings.setTheme' : 'challenges.search'
      await until(`the ${page} page`, () => published.some((list) => list.includes(tool)))
      // Let anything React or the registry still had queued run before counting.
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(published).toEqual([
        page === 'settings'
          ? ['app.navigate', 'settings.setTheme']
          : ['app.navigate', 'challenges.create', 'challenges.search'],
      ])
    }
    off()
    root.unmount()
  })
})
