import { act, render } from '@testing-library/react'
import type { Toolmark } from '@toolmark/core'
import { useToolmark } from '@toolmark/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { navigationTool, RouteScope, ToolmarkProvider, useNavigationTool } from '../index.ts'
import { NextRoute, resetRoute, route } from './router.tsx'

beforeEach(resetRoute)

let tm: Toolmark | undefined
function App(): null {
  tm = useToolmark()
  useNavigationTool({ pages: { challenges: '/challenges', settings: '/settings' } })
  return null
}

describe('navigation tool', () => {
  it('answers ok with the target before navigating, and navigates in the next task', async () => {
    vi.useFakeTimers()
    try {
      const router = { push: vi.fn(), replace: vi.fn() }
      const tool = navigationTool(router, { pages: { challenges: '/challenges', settings: '/settings' } })
      expect(await tool.run!({ page: 'settings' }, {} as never)).toEqual({
        status: 'ok',
        data: { page: 'settings', href: '/settings' },
      })
      expect(router.push).not.toHaveBeenCalled()
      vi.runAllTimers()
      expect(router.push).toHaveBeenCalledWith('/settings')
      const replacing = navigationTool(router, { pages: { home: '/' }, history: 'replace', name: 'go' })
      await replacing.run!({ page: 'home' }, {} as never)
      vi.runAllTimers()
      expect(router.replace).toHaveBeenCalledWith('/')
    } finally {
      vi.useRealTimers()
    }
  })

  it('registered with useNavigationTool: validates the page and uses the app router', async () => {
    render(
      <NextRoute>
        <ToolmarkProvider>
          <RouteScope name="app" params={[]}>
            <App />
          </RouteScope>
        </ToolmarkProvider>
      </NextRoute>,
    )
    expect(tm!.manifest({ detail: 'full' }).tools).toMatchObject([
      {
        name: 'app.navigate',
        hints: { readOnly: true },
        inputSchema: {
          properties: {
            page: { enum: ['challenges', 'settings'] },
            url: { type: 'string' },
            replace: { type: 'boolean' },
          },
        },
      },
    ])
    expect(await tm!.call('app.navigate', { page: 'billing' }, { caller: 'inapp' })).toMatchObject({
      status: 'invalid',
    })
    const result = await tm!.call('app.navigate', { page: 'settings' }, { caller: 'inapp' })
    expect(result).toEqual({ status: 'ok', data: { page: 'settings', href: '/settings' } })
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)))
    expect(route.push).toHaveBeenCalledWith('/settings')
  })

  it('takes the same input and refusals as every navigation tool: url, replace, both, another origin', async () => {
    vi.useFakeTimers()
    try {
      const router = { push: vi.fn(), replace: vi.fn() }
      const tool = navigationTool(router, {
        pages: { settings: '/settings' },
        allow: (url) => !url.pathname.startsWith('/admin'),
      })
      const run = (input: Parameters<NonNullable<typeof tool.run>>[0]) => tool.run!(input, {} as never)
      expect(await run({ url: '/challenges/3?tab=notes', replace: true })).toEqual({
        status: 'ok',
        data: { href: '/challenges/3?tab=notes' },
      })
      vi.runAllTimers()
      expect(router.replace).toHaveBeenCalledWith('/challenges/3?tab=notes')
      expect(await run({ page: 'settings', url: '/x' })).toMatchObject({ status: 'invalid' })
      expect(await run({})).toMatchObject({ status: 'invalid' })
      for (const url of ['https://evil.test/', '//evil.test/x', '/admin']) {
        expect(await run({ url })).toEqual({
          status: 'refused',
          code: 'not_allowed',
          message: 'This URL cannot be opened from here',
        })
      }
      vi.runAllTimers()
      expect(router.push).not.toHaveBeenCalled()
    } finally {
      vi.useRealTimers()
    }
  })
})
