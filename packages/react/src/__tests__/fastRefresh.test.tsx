/**
 * Fast refresh with React's real refresh runtime (the one @vitejs/plugin-react serves in dev): an
 * edited component re-runs its effects (cleanup, then setup) and a component whose hooks changed is
 * remounted. Neither may produce duplicate_name, lose the tool or register it twice.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Toolmark } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import type { ReactNode } from 'react'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'

interface RefreshRuntime {
  injectIntoGlobalHook(globalObject: unknown): void
  register(type: unknown, id: string): void
  createSignatureFunctionForTransform(): (type: unknown, key: string, forceReset?: boolean) => unknown
  validateRefreshBoundaryAndEnqueueUpdate(id: string, prev: object, next: object): string | undefined
}

let runtime: RefreshRuntime
let rtl: typeof import('@testing-library/react')
let adapter: typeof import('../index.ts')

beforeAll(async () => {
  const pluginEntry = createRequire(import.meta.url).resolve('@vitejs/plugin-react')
  const runtimeUrl = pathToFileURL(join(dirname(pluginEntry), 'refresh-runtime.js')).href
  runtime = (await import(/* @vite-ignore */ runtimeUrl)) as RefreshRuntime
  runtime.injectIntoGlobalHook(window)
  // Only now load react-dom (and what imports it), so it connects to the refresh hook.
  rtl = await import('@testing-library/react')
  adapter = await import('../index.ts')
})

afterEach(() => {
  vi.useRealTimers()
})

/** Swaps `prev` for `next` under one module id and lets the runtime perform the refresh. */
async function hotUpdate(id: string, prev: Record<string, unknown>, next: Record<string, unknown>) {
  for (const [key, type] of Object.entries(next)) runtime.register(type, `${id} export ${key}`)
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  expect(runtime.validateRefreshBoundaryAndEnqueueUpdate(id, prev, next)).toBeUndefined()
  vi.advanceTimersByTime(20)
  vi.useRealTimers()
  await rtl.act(async () => {})
}

/** One "edit" of a component module (a factory stands in for the re-evaluated module). */
function toolVersion(label: string, name = 'search') {
  // biome-ignore lint/correctness/noComponentHookFactories: each call is a new version of the same component, as after an edit
  return function Tool(): ReactNode {
    adapter.useTool({
      name,
      description: 'Search',
      hints: { readOnly: true },
      run: () => ({ status: 'ok', data: label }),
    })
    return <p>{label}</p>
  }
}

function setupRegistry(): { tm: Toolmark; errors: string[] } {
  const tm = createTestToolmark()
  const errors: string[] = []
  tm.events.on('error', (e) => errors.push(e.code))
  return { tm, errors }
}

describe.each([false, true])('fast refresh (StrictMode: %s)', (strict) => {
  const mount = (tm: Toolmark, ui: ReactNode) =>
    rtl.render(<adapter.ToolmarkProvider toolmark={tm}>{ui}</adapter.ToolmarkProvider>, {
      reactStrictMode: strict,
    })

  it('an edited component keeps exactly one registration and runs the new code', async () => {
    const { tm, errors } = setupRegistry()
    const id = `/src/Search-${strict}.tsx`
    const v1 = toolVersion('v1')
    runtime.register(v1, `${id} export Tool`)
    mount(tm, <TopLevel of={v1} />)
    await rtl.act(async () => {})
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['search'])

    // React renders the fiber created for v1 with its family's latest version.
    const v2 = toolVersion('v2')
    await hotUpdate(id, { Tool: v1 }, { Tool: v2 })
    expect(rtl.screen.getByText('v2')).toBeTruthy()
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['search'])
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'v2' })

    const v3 = toolVersion('v3', 'find')
    await hotUpdate(id, { Tool: v2 }, { Tool: v3 })
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['find'])
    expect(errors).toEqual([])
  })

  it('a component remounted by a hook change keeps exactly one registration', async () => {
    const { tm, errors } = setupRegistry()
    const id = `/src/Remount-${strict}.tsx`
    const v1 = toolVersion('v1')
    const sign1 = runtime.createSignatureFunctionForTransform()
    sign1(v1, 'useTool{}')
    runtime.register(v1, `${id} export Tool`)
    mount(tm, <TopLevel of={v1} />)
    await rtl.act(async () => {})
    const v2 = toolVersion('v2')
    const sign2 = runtime.createSignatureFunctionForTransform()
    sign2(v2, 'useTool{} useState{}', true)
    await hotUpdate(id, { Tool: v1 }, { Tool: v2 })
    expect(rtl.screen.getByText('v2')).toBeTruthy()
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['search'])
    expect(await tm.call('search', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'v2' })
    expect(errors).toEqual([])
  })
})

function TopLevel({ of: Component }: { of: () => ReactNode }) {
  return <Component />
}
