import type { PendingConfirmation, ToolResult } from '@toolmark/core'
import { type ReactNode, useState } from 'react'

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

/** `m:ss` left until `expiresAt`, never negative. */
export function timeLeft(expiresAt: number, now: number): string {
  const seconds = Math.max(0, Math.ceil((expiresAt - now) / 1000))
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}

/**
 * A deferred confirmation as a card in the chat: tool, target, summary, the (redacted) changes or input,
 * Approve/Reject (Delete/Cancel for destructive tools) and the time left before it expires.
 */
export function ConfirmCard(props: {
  pending: PendingConfirmation
  now: number
  onAnswer: (approved: boolean) => Promise<ToolResult>
}): ReactNode {
  const { pending, now, onAnswer } = props
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string>()
  const rows: Array<[string, unknown, unknown?]> =
    pending.changes.length > 0
      ? pending.changes.map((change) => [change.path, change.after, change.before])
      : flattenInput(pending.input)

  const answer = async (approved: boolean): Promise<void> => {
    setBusy(true)
    const result = await onAnswer(approved)
    setBusy(false)
    if (result.status === 'refused' || result.status === 'error') setProblem(result.message)
    else if (result.status === 'invalid') setProblem(result.issues.map((issue) => issue.message).join('; '))
  }

  return (
    <article
      className={pending.destructive ? 'confirm-card destructive' : 'confirm-card'}
      data-testid="confirm-card"
      data-tool={pending.tool}
      data-destructive={String(pending.destructive)}
      aria-label={`Confirm: ${pending.summary}`}
    >
      <header>
        <strong>{pending.title ?? pending.tool}</strong>
        <code>{pending.tool}</code>
      </header>
      <p className="summary">{pending.summary}</p>
      {pending.target !== undefined && (
        <p className="target">
          Target: <b>{pending.target}</b>
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
      {pending.destructive && <p className="warning">This action cannot be undone.</p>}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <footer>
        <span className="countdown" data-testid="confirm-countdown">
          Expires in {timeLeft(pending.expiresAt, now)}
        </span>
        <button
          type="button"
          className="secondary"
          data-testid="confirm-reject"
          disabled={busy}
          onClick={() => answer(false)}
        >
          {pending.destructive ? 'Cancel' : 'Reject'}
        </button>
        {pending.destructive ? (
          <button
            type="button"
            className="danger"
            data-testid="confirm-delete"
            disabled={busy}
            onClick={() => answer(true)}
          >
            Delete
          </button>
        ) : (
          <button type="button" data-testid="confirm-approve" disabled={busy} onClick={() => answer(true)}>
            Approve
          </button>
        )}
      </footer>
    </article>
  )
}
