import { act, render } from '@testing-library/react'
import type { Toolmark } from '@toolmark/core'
import { useToolmark } from '@toolmark/react'
import { StrictMode, Suspense, use } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { RouteScope, ToolmarkProvider, tabToolmark, useRouteTool } from '../index.ts'
import { NextRoute } from './router.tsx'

let data: Promise<string> = Promise.resolve('')
function SuspendedPage(): null {
  const value = use(data)
  useRouteTool({
    name: 'details',
    description: `Details of ${value}`,
    hints: { readOnly: true },
    run: () => undefined,
  })
  return null
}

let seen: Toolmark | undefined
function Grab(): null {
  seen = useToolmark()
  return null
}

describe('a suspended segment (loading.tsx, <Suspense>)', () => {
  it.each([false, true])('registers its tools once, when it commits (StrictMode %s)', async (strict) => {
    const tm = tabToolmark({ dev: true })
    const probe = tm.scope('probe')
    const register = vi.spyOn(Object.getPrototypeOf(probe) as { register: () => unknown }, 'register')
    probe.dispose()
    let resolve!: (value: string) => void
    data = new Promise((r) => {
      resolve = r
    })
    const ui = (
      <NextRoute>
        <ToolmarkProvider>
          <Grab />
          <Suspense fallback={<p>Loading…</p>}>
            <RouteScope name="challenge">
              <SuspendedPage />
            </RouteScope>
          </Suspense>
        </ToolmarkProvider>
      </NextRoute>
    )
    const view = await act(async () => render(strict ? <StrictMode>{ui}</StrictMode> : ui))
    expect(view.getByText('Loading…')).toBeTruthy()
    expect(seen!.manifest().tools).toEqual([])
    // React reveals the boundary after its fallback throttle (a few hundred ms).
    await act(async () => {
      resolve('Chess')
      await new Promise((done) => setTimeout(done, 500))
    })
    expect(view.queryByText('Loading…')).toBeNull()
    expect(seen!.manifest().tools.map((t) => [t.name, t.description])).toEqual([
      ['challenge.details', 'Details of Chess'],
    ])
    // Nothing registered while suspended; at commit the tool waits for its scope (made in the route
    // scope's effect), so even StrictMode's doubled mount effects register it once.
    expect(register).toHaveBeenCalledTimes(1)
    register.mockRestore()
  })
})
