import type { Scope } from '@toolmark/core'
import { createScopeBinding } from '@toolmark/core/adapter'
import {
  getCurrentInstance,
  type MaybeRefOrGetter,
  onScopeDispose,
  provide,
  type ShallowRef,
  shallowRef,
  toValue,
  watch,
} from 'vue'
import { injectScope, SCOPE_KEY, useToolmark } from './injection.ts'
import { onClientStart } from './lifecycle.ts'

/** Options of `useScope`. */
export interface UseScopeOptions {
  /** While false the scope's tools are hidden; a ref or getter is watched and applied at once. */
  when?: MaybeRefOrGetter<boolean>
  /** A transparent scope adds no name segment and shares its parent's call queue. */
  transparent?: boolean
}

/**
 * A scope named `name` for this component: created on mount, disposed with the component (with its
 * tools and pending confirmations), and provided to descendants so their `useTool` registers in it.
 * The returned ref holds `null` until the scope exists (before mount, on the server); a changed
 * `name` disposes the scope and creates the new one.
 * An invalid `name` (see tool names): a development registry throws `ToolmarkError` `invalid_name`
 * from `onMounted` (to `onErrorCaptured` and `app.config.errorHandler`); a production one reports it as an error event and the scope's tools do not register.
 */
export function useScope(
  name: MaybeRefOrGetter<string>,
  options: UseScopeOptions = {},
): Readonly<ShallowRef<Scope | null>> {
  const tm = useToolmark()
  const parent = injectScope()
  const scope = shallowRef<Scope | null>(null)
  if (getCurrentInstance()) provide(SCOPE_KEY, scope)
  const binding = createScopeBinding(tm)
  let unmount: (() => void) | undefined

  onClientStart(
    () => {
      binding.subscribe(() => {
        scope.value = binding.current
      })
      watch(
        [() => toValue(name), () => parent?.value, () => toValue(options.when) !== false],
        ([segment, under, visible]) =>
          binding.update({ name: segment, parent: under, transparent: options.transparent }, visible),
        { immediate: true, flush: 'sync' },
      )
      unmount = binding.mount()
    },
    'useScope',
    tm.dev,
  )
  onScopeDispose(() => unmount?.(), true)
  return scope
}
