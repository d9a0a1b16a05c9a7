'use client'
import type { ConfirmationCardData } from '@toolmark/core'
import { attachCard, type ConfirmationCardView, cardView } from '@toolmark/core/adapter'
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'

/** Keyboard and focus options of `useConfirmationCard`. */
export interface ConfirmationCardOptions {
  /** Called on Escape while focus is inside the card (bound through `cardRef`); usually `item.reject`. */
  reject?: () => unknown
  /** The days the "always allow" choice of a grantable card lasts. Default 30. */
  grantDays?: number
  /**
   * Move focus to the Reject button (`data-toolmark-reject`) when the card mounts, e.g. when it answers
   * the user's own chat message. Never taken from a text field the user is typing in. Read at mount.
   */
  autoFocus?: boolean
}

/** The card view plus `cardRef`, to put on the card's root element. */
export interface ConfirmationCardState extends ConfirmationCardView {
  /**
   * Ref callback for the card's root element: Escape inside rejects, `autoFocus` moves focus to Reject,
   * and on unmount focus goes back to where it was before it entered the card.
   */
  cardRef: (element: HTMLElement | null) => (() => void) | undefined
}

/**
 * Headless data for one confirmation card (deferred item or inline request): heading, summary,
 * target, redacted changes, labels, ARIA ids and a countdown to `expiresAt` that re-renders every
 * second until it reaches zero. The core, not this countdown, decides expiry at approval time.
 */
export function useConfirmationCard(
  data: ConfirmationCardData,
  options: ConfirmationCardOptions = {},
): ConfirmationCardState {
  const [now, setNow] = useState(() => Date.now())
  const { expiresAt } = data
  useEffect(() => {
    setNow(Date.now())
    if (Date.now() >= expiresAt) return
    const id = setInterval(() => {
      const t = Date.now()
      setNow(t)
      if (t >= expiresAt) clearInterval(id)
    }, 1000)
    return () => clearInterval(id)
  }, [expiresAt])
  // Latest options for the stable ref callback; `autoFocus` only matters when the card mounts.
  const latest = useRef(options)
  useLayoutEffect(() => {
    latest.current = options
  })
  const cardRef = useCallback((element: HTMLElement | null) => {
    if (!element) return undefined
    return attachCard(element, {
      reject: () => latest.current.reject?.(),
      autoFocus: latest.current.autoFocus === true,
    })
  }, [])
  return { ...cardView(data, now, options.grantDays), cardRef }
}
