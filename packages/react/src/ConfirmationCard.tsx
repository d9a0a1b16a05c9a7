'use client'
import type { ConfirmationCardData } from '@toolmark/core'
import type { ReactNode } from 'react'
import { useConfirmationCard } from './useConfirmationCard.ts'

export interface ConfirmationCardProps {
  /** A pending item (`usePendingConfirmations().items`) or an inline request (`useConfirmQueue().items`). */
  confirmation: ConfirmationCardData & { approve(): unknown; reject(): unknown }
}

const show = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value))

/**
 * A small unstyled reference card: heading, summary, target, field changes, a countdown and
 * Approve/Reject (Delete plus "This action cannot be undone." for destructive tools). Copy it or use it.
 */
export function ConfirmationCard({ confirmation }: ConfirmationCardProps): ReactNode {
  const view = useConfirmationCard(confirmation)
  return (
    <section
      data-testid="confirmation-card"
      data-confirm-id={confirmation.confirmId}
      aria-label={view.heading}
    >
      <h3>{view.heading}</h3>
      <p data-testid="confirmation-summary">{view.summary}</p>
      {view.target !== undefined && <p data-testid="confirmation-target">{view.target}</p>}
      {view.changes.length > 0 && (
        <ul>
          {view.changes.map((change) => (
            <li key={change.path}>
              {change.path}: {show(change.before)} → {show(change.after)}
            </li>
          ))}
        </ul>
      )}
      {view.warning && <p data-testid="confirmation-warning">{view.warning}</p>}
      <p data-testid="confirmation-countdown">{view.expired ? 'Expired' : `Expires in ${view.countdown}`}</p>
      <button type="button" onClick={() => confirmation.approve()}>
        {view.approveLabel}
      </button>
      <button type="button" onClick={() => confirmation.reject()}>
        {view.rejectLabel}
      </button>
    </section>
  )
}
