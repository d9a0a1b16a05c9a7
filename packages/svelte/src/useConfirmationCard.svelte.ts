import type { ConfirmationCardData } from '@toolmark/core'
import { attachCard, type ConfirmationCardView, cardView } from '@toolmark/core/adapter'
import { untrack } from 'svelte'

/** Keyboard and focus options of `useConfirmationCard`, read when the card's element is attached. */
export interface ConfirmationCardOptions {
  /** Called on Escape while focus is inside the card; usually the item's `reject`. */
  reject?: () => unknown
  /** Move focus to Reject (`data-toolmark-reject`) when the card mounts; never from a field being typed in. */
  autoFocus?: boolean
  /** The days the "always allow" choice of a grantable card lasts. Default 30. */
  grantDays?: number | undefined
}

/**
 * Headless data for one confirmation card (deferred item or inline request) as `.current`: heading,
 * summary, target, redacted changes, labels, ARIA ids and a countdown to `expiresAt` that ticks every
 * second while mounted (`$effect`). The core, not this countdown, decides expiry at approval time.
 * `attach` goes on the card's root element (`{@attach card.attach}`): Escape inside rejects,
 * `autoFocus` moves focus to Reject, and when the card goes away focus returns to where it was.
 * Pass a getter (`() => confirmation`) so prop changes are followed. Call during component init.
 */
export function useConfirmationCard(
  data: () => ConfirmationCardData,
  options: ConfirmationCardOptions = {},
): {
  readonly current: ConfirmationCardView
  readonly attach: (element: HTMLElement) => () => void
} {
  let now = $state(Date.now())
  // The effect reads only the expiry: reading `now` after writing it would make the effect depend on
  // it and run again, forever on a device where each run takes longer than a millisecond.
  $effect(() => {
    const expiresAt = data().expiresAt
    const start = Date.now()
    now = start
    if (start >= expiresAt) return
    const id = setInterval(() => {
      const t = Date.now()
      now = t
      if (t >= expiresAt) clearInterval(id)
    }, 1000)
    return () => clearInterval(id)
  })
  const view = $derived(cardView(data(), now, options.grantDays))
  // Untracked: the attachment must not re-run (and re-take focus) when the options' sources change.
  const attach = (element: HTMLElement) =>
    untrack(() =>
      attachCard(element, { reject: () => options.reject?.(), autoFocus: options.autoFocus === true }),
    )
  return {
    get current() {
      return view
    },
    attach,
  }
}
