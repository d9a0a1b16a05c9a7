import type { ConfirmationCardData, Remember, ToolResult } from '@toolmark/core'
import { useConfirmationCard } from '@toolmark/react'
import { type ReactNode, useCallback, useId, useRef, useState } from 'react'

const REDACTED = '[redacted]'

/** Renders one value for the card: redacted values as dots, everything else as short text. */
export function displayValue(value: unknown): string {
  if (value === REDACTED) return '••••'
  if (value === undefined) return '—'
  if (typeof value === 'string') return value
  return JSON.stringify(value, (_key, inner: unknown) => (inner === REDACTED ? '••••' : inner))
}

/** Leaf values of `input` as `[path, value]` pairs (`card.number`), for inputs without field changes. */
export function flattenInput(input: unknown, prefix = ''): Array<[string, unknown]> {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return prefix ? [[prefix, input]] : []
  return Object.entries(input as Record<string, unknown>).flatMap(([key, value]) =>
    flattenInput(value, prefix ? `${prefix}.${key}` : key),
  )
}

/**
 * What a card answers: a deferred item (`usePendingConfirmations().items`, whose answers resolve with the
 * tool's result) or an inline request (`useConfirmQueue().items`, WebMCP, MCP and tours, whose answers
 * return whether the request was still open).
 */
export type CardConfirmation = ConfirmationCardData & {
  /** Approves; `remember` (grantable cards) keeps the approval as a grant. */
  approve(input?: unknown, remember?: Remember): Promise<ToolResult> | boolean
  reject(reason?: string): Promise<ToolResult> | boolean
}

/** A short line for an answer the registry did not carry out (expired, invalid, failed). */
function problemOf(result: ToolResult | boolean): string | undefined {
  if (result === false) return 'This request is no longer open.'
  if (result === true) return undefined
  if (result.status === 'refused' || result.status === 'error') return result.message
  if (result.status === 'invalid') return result.issues.map((issue) => issue.message).join('; ')
  return undefined
}

/**
 * A confirmation as a card (in the chat, and for agents outside the app in the page): tool, target, summary, the (redacted) changes or input,
 * Approve/Reject (Delete for destructive tools, with "This action cannot be undone." unless the tool is
 * undoable) and the time left before it expires. A grantable card also offers to remember the approval
 * ("Allow once", "Allow for this conversation", "Always allow for 30 days"). Built on `useConfirmationCard` from @toolmark/react:
 * an alertdialog named by its heading and described by its summary; Escape inside it rejects.
 */
export function ConfirmCard(props: {
  confirmation: CardConfirmation
  /** Take focus (on Reject) when the card appears: it answers the message the user just sent. */
  autoFocus?: boolean
  /**
   * Scroll the card into view when it appears, to this edge (`'nearest'`: the smallest scroll that
   * shows it): for cards outside the chat, which the user would otherwise not see.
   */
  scrollIntoView?: ScrollLogicalPosition
}): ReactNode {
  const { confirmation, autoFocus = false } = props
  const view = useConfirmationCard(confirmation, { reject: () => answer(false), autoFocus })
  const scrollTo = useRef(props.scrollIntoView)
  const { cardRef } = view
  const ref = useCallback(
    (element: HTMLElement | null) => {
      const detach = cardRef(element)
      if (element && scrollTo.current) element.scrollIntoView?.({ block: scrollTo.current })
      return detach
    },
    [cardRef],
  )
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string>()
  const [choice, setChoice] = useState(0)
  const group = useId()
  const remember = view.grantChoices[choice]?.remember
  const rows: Array<[string, unknown, unknown?]> =
    view.changes.length > 0
      ? view.changes.map((change) => [change.path, change.after, change.before])
      : flattenInput(confirmation.input)

  const answer = async (approved: boolean): Promise<void> => {
    if (busy) return
    setBusy(true)
    const result = await (approved
      ? remember === undefined || remember === 'once'
        ? confirmation.approve()
        : confirmation.approve(undefined, remember)
      : confirmation.reject('rejected'))
    setBusy(false)
    setProblem(problemOf(result))
  }

  return (
    <article
      ref={ref}
      className={view.destructive ? 'confirm-card destructive' : 'confirm-card'}
      data-testid="confirm-card"
      data-tool={confirmation.tool}
      data-destructive={String(view.destructive)}
      role={view.role}
      aria-labelledby={view.titleId}
      aria-describedby={view.summaryId}
    >
      <header>
        <strong id={view.titleId}>{view.heading}</strong>
        <code>{confirmation.tool}</code>
      </header>
      <p className="summary" id={view.summaryId}>
        {view.summary}
      </p>
      {view.target !== undefined && (
        <p className="target">
          Target: <b>{view.target}</b>
        </p>
      )}
      {rows.length > 0 && (
        <dl className="changes">
          {rows.map(([path, value, before]) => (
            <div key={path}>
              <dt>{path}</dt>
              <dd>
                {before !== undefined && <s>{displayValue(before)}</s>} {displayValue(value)}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {view.warning && <p className="warning">{view.warning}</p>}
      {view.undoNote && (
        <p className="undo-note" data-testid="confirm-undo-note">
          {view.undoNote}
        </p>
      )}
      {view.grantChoices.length > 0 && (
        <fieldset className="remember" data-testid="confirm-remember">
          <legend>Remember this approval</legend>
          {view.grantChoices.map((option, i) => (
            <label key={option.key}>
              <input
                type="radio"
                name={group}
                value={option.key}
                checked={choice === i}
                disabled={busy}
                onChange={() => setChoice(i)}
              />{' '}
              {option.label}
            </label>
          ))}
        </fieldset>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <footer>
        <span className="countdown" data-testid="confirm-countdown" role="timer" aria-live="off">
          {view.expired ? 'Expired' : `Expires in ${view.countdown}`}
        </span>
        <button
          type="button"
          className="secondary"
          data-testid="confirm-reject"
          data-toolmark-reject=""
          disabled={busy}
          onClick={() => answer(false)}
        >
          {view.rejectLabel}
        </button>
        <button
          type="button"
          className={view.destructive ? 'danger' : undefined}
          data-testid={view.destructive ? 'confirm-delete' : 'confirm-approve'}
          disabled={busy || view.expired}
          onClick={() => answer(true)}
        >
          {view.approveLabel}
        </button>
      </footer>
    </article>
  )
}
