import { usePage } from '@inertiajs/vue3'
import type { Scope } from '@toolmark/core'
import { SCOPE_KEY } from '@toolmark/vue'
import {
  type App,
  type Component,
  type DefineComponent,
  defineComponent,
  h,
  type InjectionKey,
  inject,
  onScopeDispose,
  provide,
  type ShallowRef,
  shallowRef,
  watchEffect,
} from 'vue'
import type { InertiaBinding } from '../binding.ts'
import type { InertiaPageLike } from '../types.ts'

export type { InertiaBinding } from '../binding.ts'

const BINDING_KEY: InjectionKey<InertiaBinding> = Symbol('toolmark.inertia')

/** The message thrown by `useInertiaBinding()` when no binding was installed. */
export const NO_BINDING = 'No Inertia binding found: install it with app.use(inertiaToolmark(binding)).'

/**
 * A Vue plugin that provides the binding and the layout scope to the whole app (persistent layouts,
 * the chat): their `useTool`s live as long as the app. Install it after `ToolmarkPlugin`; page
 * components get their page scope from {@link withPageScope} / {@link pageScoped} / {@link usePageScopeProvider}.
 */
export function inertiaToolmark(binding: InertiaBinding): { install(app: App): void } {
  return {
    install(app) {
      app.provide(BINDING_KEY, binding)
      app.provide(SCOPE_KEY, shallowRef(binding.layout))
    },
  }
}

/** The installed binding; throws a clear error without one. */
export function useInertiaBinding(): InertiaBinding {
  const binding = inject(BINDING_KEY, null)
  if (!binding) throw new Error(NO_BINDING)
  return binding
}

/**
 * The scope of the page being rendered (from `usePage()`), as a ref that follows the binding: the
 * current page scope, or the one the next page gets while it mounts. `null` on the server.
 */
export function usePageScope(): Readonly<ShallowRef<Scope | null>> {
  const binding = useInertiaBinding()
  const page = usePage() as unknown as InertiaPageLike
  const version = shallowRef(0)
  const scope = shallowRef<Scope | null>(null)
  onScopeDispose(binding.subscribe(() => version.value++))
  watchEffect(
    () => {
      void version.value
      scope.value = binding.scopeFor({ component: page.component, url: page.url, props: page.props })
    },
    { flush: 'sync' },
  )
  return scope
}

/** Makes this component's descendants register their tools in the current page's scope. */
export function usePageScopeProvider(): Readonly<ShallowRef<Scope | null>> {
  const scope = usePageScope()
  provide(SCOPE_KEY, scope)
  return scope
}

type PageComponent = Component & { layout?: unknown }
/** What Inertia's Vue `resolve` returns. */
type ResolvedPage = DefineComponent
const wrapped = new WeakMap<object, ResolvedPage>()

/**
 * Wraps an Inertia page component so its tools live in the page scope, keeping its persistent
 * `layout` (which stays outside the page scope). The same component always gets the same wrapper.
 */
export function withPageScope(page: PageComponent): ResolvedPage {
  const known = wrapped.get(page)
  if (known) return known
  const Wrapped = defineComponent({
    name: 'PageScope',
    inheritAttrs: false,
    setup: function PageScope(_, { attrs, slots }) {
      usePageScopeProvider()
      return () => h(page, attrs, slots)
    },
  }) as unknown as ResolvedPage
  if ('layout' in page) (Wrapped as { layout?: unknown }).layout = page.layout
  wrapped.set(page, Wrapped)
  return Wrapped
}

type Resolved = PageComponent | { default: PageComponent }

/** Wraps `createInertiaApp`'s `resolve` so every page component gets its page scope. */
export function pageScoped<A extends unknown[]>(
  resolve: (name: string, ...rest: A) => Resolved | Promise<Resolved>,
): (name: string, ...rest: A) => Promise<ResolvedPage> {
  return async (name, ...rest) => {
    const resolved = await resolve(name, ...rest)
    return withPageScope(
      typeof resolved === 'object' && resolved !== null && 'default' in resolved
        ? resolved.default
        : resolved,
    )
  }
}
export * from './forms.ts'
