import type { ConfirmationCardData } from '../types.ts'

/** Text shown on destructive confirmation cards. */
export const DESTRUCTIVE_WARNING = 'This action cannot be undone.'

/** What a confirmation card renders, derived from the core's card data and the current time. */
export interface ConfirmationCardView {
  confirmId: string
  /** Full tool name. */
  tool: string
  title: string | undefined
  /** `title`, else the tool name. */
  heading: string
  summary: string
  target: string | undefined
  changes: ConfirmationCardData['changes']
  destructive: boolean
  /** `'Delete'` for destructive tools, `'Approve'` otherwise. */
  approveLabel: 'Delete' | 'Approve'
  rejectLabel: 'Reject'
  /** `'This action cannot be undone.'` for destructive tools. */
  warning: string | undefined
  /** Epoch milliseconds after which the core refuses approval. */
  expiresAt: number
  /** Whole seconds until `expiresAt` (0 once expired). */
  secondsLeft: number
  /** `m:ss` until expiry. */
  countdown: string
  expired: boolean
}

/** Derives the card view; pure, so each framework only supplies a ticking `now`. */
export function cardView(data: ConfirmationCardData, now: number): ConfirmationCardView {
  const secondsLeft = Math.max(0, Math.ceil((data.expiresAt - now) / 1000))
  const minutes = Math.floor(secondsLeft / 60)
  const seconds = secondsLeft % 60
  return {
    confirmId: data.confirmId,
    tool: data.tool,
    title: data.title,
    heading: data.title ?? data.tool,
    summary: data.summary,
    target: data.target,
    changes: data.changes,
    destructive: data.destructive,
    approveLabel: data.destructive ? 'Delete' : 'Approve',
    rejectLabel: 'Reject',
    warning: data.destructive ? DESTRUCTIVE_WARNING : undefined,
    expiresAt: data.expiresAt,
    secondsLeft,
    countdown: `${minutes}:${String(seconds).padStart(2, '0')}`,
    expired: secondsLeft === 0,
  }
}
