'use client'
import { type ResolvedComponent, usePage } from '@inertiajs/react'
import { ToolScope } from '@toolmark/react'
import {
  createContext,
  createElement,
  type ReactNode,
  useCallback,
  useContext,
  useSyncExternalStore,
} from 'react'
import type { InertiaBinding } from '../binding.ts'
import type { InertiaPageLike } from '../types.ts'

export type { InertiaBinding } from '../binding.ts'

const BindingContext = createContext<InertiaBinding | null>(null)

/** The message thrown by `useInertiaBinding()` outside an `<InertiaToolmark>`. */
export const NO_BINDING =
  'No Inertia binding found: wrap the Inertia <App> in <InertiaToolmark binding={...}>.'

/** Props of {@link InertiaToolmark}. */
export interface InertiaToolmarkProps {
  /** The binding from `bindInertia(tm, { router })`, created once in the client entry. */
  binding: InertiaBinding
  children?: ReactNode
}

/**
 * Provides the binding to the Inertia app and the layout scope to everything that is not a page
 * (persistent layouts, the chat): their `useTool`s live as long as the app, not the page. Put it
 * inside `<ToolmarkProvider>` and around Inertia's `<App>`; page components get their page scope
 * from {@link withPageScope} / {@link pageScoped} / {@link PageScope}.
 */
export function InertiaToolmark({ binding, children }: InertiaToolmarkProps): ReactNode {
  return (
    <BindingContext.Provider value={binding}>
      <ToolScope name="" transparent parent={binding.layout}>
        {children}
      </ToolScope>
    </BindingContext.Provider>
  )
}

/** The binding provided by `<InertiaToolmark>`; throws a clear error without one. */
export function useInertiaBinding(): InertiaBinding {
  const binding = useContext(BindingContext)
  if (!binding) throw new Error(NO_BINDING)
  return binding
}

/**
 * The scope of the page being rendered (from `usePage()`): the binding's current page scope, or
 * the one the next page gets while it mounts. `null` on the server.
 */
export function usePageScope(): ReturnType<InertiaBinding['scopeFor']> {
  const binding = useInertiaBinding()
  const page = usePage() as unknown as InertiaPageLike
  const snapshot = useCallback(() => binding.scopeFor(page), [binding, page])
  return useSyncExternalStore(binding.subscribe, snapshot, () => null)
}

/** Gives its subtree the current page's scope: every `useTool` below lives and dies with the page. */
export function PageScope({ children }: { children?: ReactNode }): ReactNode {
  const scope = usePageScope()
  return (
    <ToolScope name="" transparent parent={scope}>
      {children}
    </ToolScope>
  )
}

const wrapped = new WeakMap<ResolvedComponent, ResolvedComponent>()

/**
 * Wraps an Inertia page component in {@link PageScope}, keeping its persistent `layout` (which stays
 * outside the page scope, in the layout scope). The same component always gets the same wrapper.
 */
export function withPageScope(Component: ResolvedComponent): ResolvedComponent {
  const known = wrapped.get(Component)
  if (known) return known
  const Wrapped: ResolvedComponent = (props: object) => (
    <PageScope>{createElement(Component, props)}</PageScope>
  )
  Wrapped.displayName = `PageScope(${Component.displayName ?? Component.name ?? 'Page'})`
  if ('layout' in Component) Wrapped.layout = Component.layout
  wrapped.set(Component, Wrapped)
  return Wrapped
}

type Resolved = ResolvedComponent | { default: ResolvedComponent }

/**
 * Wraps `createInertiaApp`'s `resolve` so every page component gets its page scope:
 * `resolve: pageScoped((name) => pages[`./Pages/${name}.tsx`])`.
 */
export function pageScoped<A extends unknown[]>(
  resolve: (name: string, ...rest: A) => Resolved | Promise<Resolved>,
): (name: string, ...rest: A) => Promise<ResolvedComponent> {
  return async (name, ...rest) => {
    const resolved = await resolve(name, ...rest)
    return withPageScope(typeof resolved === 'object' && 'default' in resolved ? resolved.default : resolved)
  }
}
export * from './forms.ts'
