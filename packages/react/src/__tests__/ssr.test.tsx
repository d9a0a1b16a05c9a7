import { act } from '@testing-library/react'
import { createToolmark } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { hydrateRoot } from 'react-dom/client'
import { renderToString } from 'react-dom/server'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import {
  ConfirmationCard,
  ToolmarkProvider,
  ToolScope,
  useManifest,
  usePendingConfirmations,
  useScope,
  useTool,
  useToolAnchor,
  useToolmarkContext,
} from '../index.ts'

function Tool() {
  const anchor = useToolAnchor()
  useTool({
    name: 'search',
    description: 'Search',
    hints: { readOnly: true },
    anchors: { tool: anchor.target },
    run: () => undefined,
  })
  useToolmarkContext({ name: 'query', description: 'The search query', value: 'shoes' })
  return (
    <button type="button" ref={anchor.ref}>
      Search
    </button>
  )
}

function Page() {
  const manifest = useManifest()
  const { items } = usePendingConfirmations()
  const scope = useScope('own')
  return (
    <main>
      <p>tools: {manifest.tools.length}</p>
      <p>scope: {scope ? 'yes' : 'no'}</p>
      {items.map((item) => (
        <ConfirmationCard key={item.confirmId} confirmation={item} />
      ))}
      <Tool />
      <ToolScope name="settings">
        <Tool />
      </ToolScope>
    </main>
  )
}

describe('server rendering', () => {
  beforeEach(() => {
    environment.setIsServer(true)
  })

  it('renders the same components while registering nothing, attaching nothing and throwing nothing', () => {
    const tm = createToolmark({ dev: true })
    const consumer = vi.fn(() => undefined)
    const listener = vi.fn()
    tm.events.on('error', listener)
    const context = vi.spyOn(tm, 'context')
    const html = renderToString(
      <ToolmarkProvider toolmark={tm} consumers={[consumer]}>
        <Page />
      </ToolmarkProvider>,
    )
    expect(html).toContain('tools: <!-- -->0')
    expect(html).toContain('scope: <!-- -->no')
    expect(tm.manifest().tools).toEqual([])
    expect(tm.readContext().entries).toEqual([])
    expect(context).not.toHaveBeenCalled()
    expect(tm.rev).toBe(0)
    expect(consumer).not.toHaveBeenCalled()
    expect(listener).not.toHaveBeenCalled()
  })

  it('hydrates on the client and registers only then', async () => {
    const server = createToolmark()
    const html = renderToString(
      <ToolmarkProvider toolmark={server}>
        <Page />
      </ToolmarkProvider>,
    )
    environment.setIsServer(false)
    const tm = createToolmark()
    const container = document.createElement('div')
    container.innerHTML = html
    document.body.append(container)
    const errors = vi.fn()
    const root = await act(async () =>
      hydrateRoot(
        container,
        <ToolmarkProvider toolmark={tm}>
          <Page />
        </ToolmarkProvider>,
        { onRecoverableError: errors },
      ),
    )
    await act(async () => {})
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['search', 'settings.search'])
    expect(tm.readContext().entries.map((e) => e.name)).toEqual(['query', 'settings.query'])
    expect(errors).not.toHaveBeenCalled()
    act(() => root.unmount())
    container.remove()
    expect(tm.manifest().tools).toEqual([])
    expect(tm.readContext().entries).toEqual([])
  })
})
