import { type ConfirmationCardData, environment } from '@toolmark/core'
import { type ConfirmationCardView, cardView } from '@toolmark/core/adapter'
import { type ComputedRef, computed, type MaybeRefOrGetter, onScopeDispose, shallowRef, toValue } from 'vue'
import { onClientStart } from './lifecycle.ts'

/**
 * Headless data for one confirmation card (deferred item or inline request): heading, summary,
 * target, redacted changes, labels and a countdown to `expiresAt` that ticks every second while
 * mounted. The core, not this countdown, decides expiry at approval time.
 */
export function useConfirmationCard(
  data: MaybeRefOrGetter<ConfirmationCardData>,
): ComputedRef<ConfirmationCardView> {
  const now = shallowRef(Date.now())
  let id: ReturnType<typeof setInterval> | undefined
  const stop = () => {
    if (id !== undefined) clearInterval(id)
    id = undefined
  }
  if (!environment.isServer()) {
    onClientStart(
      () => {
        now.value = Date.now()
        id = setInterval(() => {
          now.value = Date.now()
          if (now.value >= toValue(data).expiresAt) stop()
        }, 1000)
      },
      'useConfirmationCard',
      false,
    )
    onScopeDispose(stop, true)
  }
  return computed(() => cardView(toValue(data), now.value))
}
