import { AppRouterContext, LayoutRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime'
import { PathParamsContext } from 'next/dist/shared/lib/hooks-client-context.shared-runtime'
import type { ReactNode } from 'react'
import { vi } from 'vitest'

/**
 * The route state the app router would provide (a running Next app is not needed for hooks): the
 * contexts Next's own `useParams` and `useRouter` read, with the params and bfcache number set here.
 */
export const route = {
  params: {} as Record<string, string>,
  bfcache: 0,
  push: vi.fn<(href: string) => void>(),
  replace: vi.fn<(href: string) => void>(),
}

export function resetRoute(): void {
  route.params = {}
  route.bfcache = 0
  route.push.mockReset()
  route.replace.mockReset()
}

const noop = () => {}
const router = {
  back: noop,
  forward: noop,
  refresh: noop,
  hmrRefresh: noop,
  prefetch: noop,
  push: (href: string) => route.push(href),
  replace: (href: string) => route.replace(href),
}

/** Wraps `children` in Next's router contexts for the current `route`. */
export function NextRoute({ children }: { children?: ReactNode }): ReactNode {
  const layout = { parentRenderTree: { data: { bfcacheId: route.bfcache } } }
  return (
    <AppRouterContext.Provider value={router as never}>
      <LayoutRouterContext.Provider value={layout as never}>
        <PathParamsContext.Provider value={{ ...route.params }}>{children}</PathParamsContext.Provider>
      </LayoutRouterContext.Provider>
    </AppRouterContext.Provider>
  )
}
