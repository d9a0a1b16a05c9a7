import type { Scope } from '@toolmark/core'
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
  const when = () => toValue(options.when) !== false
  const release = () => {
    scope.value?.dispose()
    scope.value = null
  }

  onClientStart(
    () => {
      watch(
        [() => toValue(name), () => parent?.value],
        ([segment, under]) => {
          release()
          if (under === null) return
          const base = under ?? tm
          scope.value = base.scope(
            segment,
            options.transparent === undefined ? { when } : { when, transparent: options.transparent },
          )
        },
        { immediate: true, flush: 'sync' },
      )
      watch(when, () => scope.value?.setWhen(when), { flush: 'sync' })
    },
    'useScope',
    tm.dev,
  )
  onScopeDispose(release, true)
  return scope
}
