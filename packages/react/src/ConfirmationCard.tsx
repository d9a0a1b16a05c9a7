'use client'
import type { ConfirmationCardData } from '@toolmark/core'
import type { ReactNode } from 'react'
import { useConfirmationCard } from './useConfirmationCard.ts'

export interface ConfirmationCardProps {
  /** A pending item (`usePendingConfirmations().items`) or an inline request (`useConfirmQueue().items`). */
  confirmation: ConfirmationCardData & { approve(): unknown; reject(): unknown }
  /**
   * Move focus to Reject when the card appears (pass it when the card answers what the user just did);
   * focus goes back when the card settles. Never taken from a field the user is typing in.
   */
  autoFocus?: boolean
}

const show = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value))

/**
 * A small unstyled reference card: heading, summary, target, field changes, a countdown, then Reject
 * and Approve, in that order (Delete plus "This action cannot be undone." for destructive tools
 * without undo). Approve (or Delete) is the one primary button, marked `data-toolmark-primary` for
 * styling. An `alertdialog` labelled by its heading and described by its summary; Escape inside
 * rejects it, and `autoFocus` focuses Reject.
 * Copy it or use it.
 */
export function ConfirmationCard({ confirmation, autoFocus = false }: ConfirmationCardProps): ReactNode {
  const view = useConfirmationCard(confirmation, { reject: () => confirmation.reject(), autoFocus })
  return (
    <section
      ref={view.cardRef}
      data-testid="confirmation-card"
      data-confirm-id={confirmation.confirmId}
      role={view.role}
      aria-labelledby={view.titleId}
      aria-describedby={view.summaryId}
    >
      <h3 id={view.titleId}>{view.heading}</h3>
      <p id={view.summaryId} data-testid="confirmation-summary">
        {view.summary}
      </p>
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
      {view.undoNote && <p data-testid="confirmation-undo-note">{view.undoNote}</p>}
      <p data-testid="confirmation-countdown" role="timer" aria-live="off">
        {view.expired ? 'Expired' : `Expires in ${view.countdown}`}
      </p>
      {/* Reject first; the approve (or Delete) button is the one primary button. */}
      <button type="button" data-toolmark-reject="" onClick={() => confirmation.reject()}>
        {view.rejectLabel}
      </button>
      <button type="button" data-toolmark-primary="" onClick={() => confirmation.approve()}>
        {view.approveLabel}
      </button>
    </section>
  )
}
