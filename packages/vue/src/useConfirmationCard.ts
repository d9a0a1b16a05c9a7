import type { ConfirmationCardData } from '@toolmark/core'
import { attachCard, type ConfirmationCardView, cardView, environment } from '@toolmark/core/adapter'
import {
  type ComputedRef,
  computed,
  type MaybeRefOrGetter,
  onScopeDispose,
  shallowRef,
  toValue,
  watch,
} from 'vue'
import { onClientStart } from './lifecycle.ts'

/** Keyboard and focus options of `useConfirmationCard`. */
export interface ConfirmationCardOptions {
  /**
   * The card's root element (a template ref). While it is mounted, Escape inside it calls `reject`,
   * `autoFocus` moves focus to its Reject button (`data-toolmark-reject`), and when it goes away focus
   * returns to where it was before it entered the card.
   */
  element?: MaybeRefOrGetter<HTMLElement | null | undefined>
  /** Called on Escape while focus is inside the card; usually the item's `reject`. */
  reject?: () => unknown
  /** Move focus to Reject when the card mounts; never taken from a field the user is typing in. */
  autoFocus?: boolean
  /** The days the "always allow" choice of a grantable card lasts. Default 30. */
  grantDays?: number
}

/**
 * Headless data for one confirmation card (deferred item or inline request): heading, summary,
 * target, redacted changes, labels, ARIA ids and a countdown to `expiresAt` that ticks every second
 * while mounted. The core, not this countdown, decides expiry at approval time.
 */
export function useConfirmationCard(
  data: MaybeRefOrGetter<ConfirmationCardData>,
  options: ConfirmationCardOptions = {},
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
        if (options.element !== undefined) {
          watch(
            () => toValue(options.element),
            (element, _previous, onCleanup) => {
              if (!element) return
              onCleanup(
                attachCard(element, {
                  reject: () => options.reject?.(),
                  autoFocus: options.autoFocus === true,
                }),
              )
            },
            { immediate: true, flush: 'post' },
          )
        }
      },
      'useConfirmationCard',
      false,
    )
    onScopeDispose(stop, true)
  }
  return computed(() => cardView(toValue(data), now.value, options.grantDays))
}
