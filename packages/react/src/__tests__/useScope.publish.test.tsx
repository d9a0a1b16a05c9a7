import { createTestToolmark } from '@toolmark/core/testing'
import { type ReactNode, StrictMode, startTransition, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Toolmark, ToolmarkProvider, ToolScope, useScope, useTool } from '../index.ts'

// React schedules work as in a browser here (no `act`): passive effects and the re-render they
// cause may run in tasks of their own, so a manifest published between them would be seen.
const flags = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean | undefined }
let wasAct: boolean | undefined
beforeEach(() => {
  wasAct = flags.IS_REACT_ACT_ENVIRONMENT
  flags.IS_REACT_ACT_ENVIRONMENT = false
})
afterEach(() => {
  flags.IS_REACT_ACT_ENVIRONMENT = wasAct
})

function Tool({ name }: { name: string }): null {
  useTool({ name, description: `Tool ${name}`, hints: { readOnly: true }, run: () => undefined })
  return null
}

/** A page that owns its scope through the hook and registers into it. */
function Settings(): null {
  const scope = useScope('settings')
  useTool({ name: 'save', description: 'Save', hints: { readOnly: true }, run: () => undefined }, { scope })
  return null
}

const PAGES: Record<string, () => ReactNode> = {
  board: () => (
    <ToolScope name="board">
      <Tool name="search" />
      <Tool name="create" />
    </ToolScope>
  ),
  settings: () => <Settings />,
}

let navigate: (page: string) => void = () => {}
function App(): ReactNode {
  const [page, setPage] = useState('board')
  navigate = (next) => startTransition(() => setPage(next))
  const Page = PAGES[page]!
  return (
    <>
      <Tool name="help" />
      <Page key={page} />
    </>
  )
}

const names = (tm: Toolmark): string[] =>
  tm
    .manifest()
    .tools.map((t) => t.name)
    .sort()

async function until(what: string, predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  if (!predicate()) throw new Error(`${what} not reached`)
}

describe.each([false, true])('swapping one scoped page for another (StrictMode %s)', (strict) => {
  it("publishes one manifest, with the new page's tools", async () => {
    const tm = createTestToolmark()
    const root = createRoot(document.createElement('div'))
    const ui = (
      <ToolmarkProvider toolmark={tm}>
        <App />
      </ToolmarkProvider>
    )
    root.render(strict ? <StrictMode>{ui}</StrictMode> : ui)
    await until('the first page', () => names(tm).includes('board.search'))
    const published: string[][] = []
    const off = tm.subscribe(() => published.push(names(tm)))
    for (const page of ['settings', 'board', 'settings']) {
      published.length = 0
      navigate(page)
      const tool = page === 'settings' ? 'settings.save' : 'board.search'
      await until(`the ${page} page`, () => published.some((list) => list.includes(tool)))
      // Let anything React or the registry still had queued run before counting.
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(published).toEqual([
        page === 'settings' ? ['help', 'settings.save'] : ['board.create', 'board.search', 'help'],
      ])
    }
    off()
    root.unmount()
  })
})
