// @vitest-environment node
import { ok, type Toolmark } from '@toolmark/core'
import { useTool, useToolmark } from '@toolmark/react'
import type { ReactNode } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it, vi } from 'vitest'
import { RouteScope, ToolmarkProvider, useRouteTool } from '../index.ts'
import { NextRoute } from './router.tsx'

function Page(): ReactNode {
  useRouteTool({ name: 'search', description: 'Search', hints: { readOnly: true }, run: () => ok() })
  useTool({ name: 'plain', description: 'Plain', hints: { readOnly: true }, run: () => ok() })
  return <h1>Challenges</h1>
}

const grabbed: Toolmark[] = []
function Grab(): null {
  grabbed.push(useToolmark())
  return null
}

const page = (
  <RouteScope name="challenges">
    <Page />
  </RouteScope>
)

describe('server rendering', () => {
  it('renders exactly the markup of the page: the provider adds none and runs nothing', () => {
    const connect = vi.fn(() => [])
    const withToolmark = renderToString(
      <NextRoute>
        <ToolmarkProvider connect={connect}>{page}</ToolmarkProvider>
      </NextRoute>,
    )
    // Without Toolmark's provider the same tree needs some registry; the page's own markup is the same.
    expect(withToolmark).toBe('<h1>Challenges</h1>')
    expect(connect).not.toHaveBeenCalled()
  })

  it('makes a registry per render, never one shared by every request', () => {
    grabbed.length = 0
    for (let i = 0; i < 2; i++)
      renderToString(
        <NextRoute>
          <ToolmarkProvider>
            <Grab />
          </ToolmarkProvider>
        </NextRoute>,
      )
    expect(grabbed).toHaveLength(2)
    expect(grabbed[0]).not.toBe(grabbed[1])
  })
})
