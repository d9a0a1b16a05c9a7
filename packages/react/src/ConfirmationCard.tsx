'use client'
import type { ConfirmationCardData, Remember } from '@toolmark/core'
import { type ReactNode, useId, useState } from 'react'
import { useConfirmationCard } from './useConfirmationCard.ts'

export interface ConfirmationCardProps {
  /** A pending item (`usePendingConfirmations().items`) or an inline request (`useConfirmQueue().items`). */
  confirmation: ConfirmationCardData & {
    approve(input?: unknown, remember?: Remember): unknown
    reject(): unknown
  }
  /**
   * Move focus to Reject when the card appears (pass it when the card answers what the user just did);
   * focus goes back when the card settles. Never taken from a field the user is typing in.
   */
  autoFocus?: boolean
  /** The days "Always allow" lasts on a grantable card. Default 30. */
  grantDays?: number
}

const show = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value))

/**
 * A small unstyled reference card: heading, summary, target, field changes, a countdown, then Reject
 * and Approve, in that order (Delete plus "This action cannot be undone." for destructive tools
 * without undo). Approve (or Delete) is the one primary button, marked `data-toolmark-primary` for
 * styling. An `alertdialog` labelled by its heading and described by its summary; Escape inside
 * rejects it, and `autoFocus` focuses Reject. A grantable card (`grantable: true`) also offers "Allow
 * once" (the default), "Allow for this conversation" (when the call has one) and "Always allow for N days"
 * as radio buttons; Approve sends the choice as `remember`.
 * Copy it or use it.
 */
export function ConfirmationCard({
  confirmation,
  autoFocus = false,
  grantDays,
}: ConfirmationCardProps): ReactNode {
  const view = useConfirmationCard(confirmation, {
    reject: () => confirmation.reject(),
    autoFocus,
    ...(grantDays !== undefined && { grantDays }),
  })
  const [choice, setChoice] = useState(0)
  const group = useId()
  const remember = view.grantChoices[choice]?.remember
  const approve = () =>
    remember === undefined || remember === 'once'
      ? confirmation.approve()
      : confirmation.approve(undefined, remember)
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
      {view.grantChoices.length > 0 && (
        <fieldset data-testid="confirmation-remember">
          <legend>Remember this approval</legend>
          {view.grantChoices.map((option, i) => (
            <label key={option.key}>
              <input
                type="radio"
                name={group}
                value={option.key}
                checked={choice === i}
                onChange={() => setChoice(i)}
              />
              {option.label}
            </label>
          ))}
        </fieldset>
      )}
      {/* Reject first; the approve (or Delete) button is the one primary button. */}
      <button type="button" data-toolmark-reject="" onClick={() => confirmation.reject()}>
        {view.rejectLabel}
      </button>
      <button type="button" data-toolmark-primary="" onClick={approve}>
        {view.approveLabel}
      </button>
    </section>
  )
}
