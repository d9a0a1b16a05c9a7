import type { Scope, Toolmark } from '@toolmark/core'
import {
  computed,
  hasInjectionContext,
  type InjectionKey,
  inject,
  provide,
  type Ref,
  type ShallowRef,
} from 'vue'

/** Injection key of the Toolmark instance. */
export const TOOLMARK_KEY: InjectionKey<Toolmark> = Symbol('toolmark')

/**
 * Injection key of the current scope: absent means the registry root, a ref holding `null` a scope
 * that does not exist yet (its tools wait for it instead of landing at the root).
 */
export const SCOPE_KEY: InjectionKey<Readonly<ShallowRef<Scope | null>>> = Symbol('toolmark.scope')

/** The message thrown by `useToolmark()` when no instance was provided. */
export const NO_TOOLMARK =
  'No Toolmark found: install it with app.use(ToolmarkPlugin, { toolmark }) or call provideToolmark(tm) in a parent component.'

/** The message thrown by `useToolmark()` outside `setup()` (or `app.runWithContext()`). */
export const NO_INJECTION_CONTEXT =
  'useToolmark() can only be used inside setup(), a functional component or app.runWithContext().'

/** Provides `tm` to this component's descendants (an alternative to `ToolmarkPlugin` for a subtree). */
export function provideToolmark(tm: Toolmark): void {
  provide(TOOLMARK_KEY, tm)
}

/** The provided Toolmark instance; throws a clear error without one or outside an injection context. */
export function useToolmark(): Toolmark {
  if (!hasInjectionContext()) throw new Error(NO_INJECTION_CONTEXT)
  const tm = inject(TOOLMARK_KEY, null)
  if (!tm) throw new Error(NO_TOOLMARK)
  return tm
}

/** The scope provided by an ancestor's `useScope` (`undefined` at the root). */
export function injectScope(): Readonly<ShallowRef<Scope | null>> | undefined {
  return hasInjectionContext() ? inject(SCOPE_KEY, undefined) : undefined
}

/**
 * The scope provided above this component (by an ancestor's `useScope`, or an integration through
 * `SCOPE_KEY`), as a read-only ref that follows it: `undefined` at the registry root, `null` while the
 * provided scope does not exist yet (before the ancestor mounts, and during server rendering). Throws
 * outside `setup()` (or `app.runWithContext()`), where nothing can be injected.
 */
export function useCurrentScope(): Readonly<Ref<Scope | null | undefined>> {
  if (!hasInjectionContext()) {
    throw new Error(
      'useCurrentScope() can only be used inside setup(), a functional component or app.runWithContext().',
    )
  }
  const provided = injectScope()
  return computed(() => provided?.value)
}
