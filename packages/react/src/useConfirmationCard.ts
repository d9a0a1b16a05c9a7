'use client'
import type { ConfirmationCardData } from '@toolmark/core'
import { type ConfirmationCardView, cardView } from '@toolmark/core/adapter'
import { useEffect, useState } from 'react'

/**
 * Headless data for one confirmation card (deferred item or inline request): heading, summary,
 * target, redacted changes, labels and a countdown to `expiresAt` that re-renders every second
 * until it reaches zero. The core, not this countdown, decides expiry at approval time.
 */
export function useConfirmationCard(data: ConfirmationCardData): ConfirmationCardView {
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
  return cardView(data, now)
}
