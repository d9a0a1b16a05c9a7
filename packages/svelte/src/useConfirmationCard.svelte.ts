import type { ConfirmationCardData } from '@toolmark/core'
import { type ConfirmationCardView, cardView } from '@toolmark/core/adapter'

/**
 * Headless data for one confirmation card (deferred item or inline request) as `.current`: heading,
 * summary, target, redacted changes, labels and a countdown to `expiresAt` that ticks every second
 * while mounted (`$effect`). The core, not this countdown, decides expiry at approval time.
 * Pass a getter (`() => confirmation`) so prop changes are followed. Call during component init.
 */
export function useConfirmationCard(data: () => ConfirmationCardData): {
  readonly current: ConfirmationCardView
} {
  let now = $state(Date.now())
  $effect(() => {
    const expiresAt = data().expiresAt
    now = Date.now()
    if (now >= expiresAt) return
    const id = setInterval(() => {
      now = Date.now()
      if (now >= expiresAt) clearInterval(id)
    }, 1000)
    return () => clearInterval(id)
  })
  const view = $derived(cardView(data(), now))
  return {
    get current() {
      return view
    },
  }
}
