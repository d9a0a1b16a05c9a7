import type { ConfirmationCardData, Remember } from '../types.ts'

/** Text shown on destructive confirmation cards whose tool offers no undo. */
export const DESTRUCTIVE_WARNING = 'This action cannot be undone.'

/** Text shown on cards of tools that declare `undoable` (instead of the destructive warning). */
export const UNDOABLE_NOTE = 'This action can be undone from the page.'

/** Attribute that marks a card's Reject button: `attachCard` moves focus there. */
export const REJECT_ATTRIBUTE = 'data-toolmark-reject'

/** The days "always allow" lasts on the reference cards, unless the app passes its own. */
export const DEFAULT_GRANT_DAYS = 30

/** One way a grantable card can remember its approval (see the Grants section of the confirmation guide). */
export interface GrantChoice {
  /** Stable key for the choice: `once`, `conversation` or `days`. */
  key: 'once' | 'conversation' | 'days'
  /** `Allow once`, `Allow for this conversation`, `Always allow for N days`. */
  label: string
  /** What to pass as `remember` when approving with this choice. */
  remember: Remember
}

/**
 * The choices a card offers: none unless the card is `grantable`; "for this conversation" only when the
 * call carried a conversation id. The first (allow once) is the default.
 */
export function grantChoices(data: ConfirmationCardData, days = DEFAULT_GRANT_DAYS): readonly GrantChoice[] {
  if (data.grantable !== true) return []
  const choices: GrantChoice[] = [{ key: 'once', label: 'Allow once', remember: 'once' }]
  if (data.conversation !== undefined)
    choices.push({ key: 'conversation', label: 'Allow for this conversation', remember: 'conversation' })
  choices.push({ key: 'days', label: `Always allow for ${days} days`, remember: { days } })
  return choices
}

/** What a confirmation card renders, derived from the core's card data and the current time. */
export interface ConfirmationCardView {
  confirmId: string
  /** Full tool name. */
  tool: string
  title: string | undefined
  /** `title`, else the tool name made readable (`challengeForm.submit` → "Challenge form: submit"). */
  heading: string
  summary: string
  target: string | undefined
  changes: ConfirmationCardData['changes']
  destructive: boolean
  /** The tool declares `undoable`: the page offers an undo afterwards. */
  undoable: boolean
  /** `'Delete'` for destructive tools, `'Approve'` otherwise. */
  approveLabel: 'Delete' | 'Approve'
  rejectLabel: 'Reject'
  /** `'This action cannot be undone.'` for destructive tools that are not `undoable`. */
  warning: string | undefined
  /** `'This action can be undone from the page.'` for `undoable` tools. */
  undoNote: string | undefined
  /** ARIA role for the card element: announced when it appears, a dialog that is not modal. */
  role: 'alertdialog'
  /** `id` for the heading element; point the card's `aria-labelledby` at it. */
  titleId: string
  /** `id` for the summary element; point the card's `aria-describedby` at it. */
  summaryId: string
  /** Epoch milliseconds after which the core refuses approval. */
  expiresAt: number
  /** Whole seconds until `expiresAt` (0 once expired). */
  secondsLeft: number
  /** `m:ss` until expiry. Render it with `role="timer"` (not live) so it is not read out every second. */
  countdown: string
  expired: boolean
  /** How the approval may be remembered (`[]`: the card offers no choice; see {@link grantChoices}). */
  grantChoices: readonly GrantChoice[]
}

/** camelCase, snake_case and kebab-case boundaries inside a name segment. */
const WORD_BREAK = /([a-z0-9])(?=[A-Z])|[_-]+/g

/**
 * A dotted tool name as words, for a heading when the tool has no title: each segment split at its
 * camelCase, `_` and `-` boundaries, the last segment after a colon, the first letter capitalized
 * (`challengeForm.submit` → "Challenge form: submit", `delete` → "Delete").
 */
export function readableToolName(name: string): string {
  const parts = name
    .split('.')
    .map((segment) => segment.replace(WORD_BREAK, '$1 ').trim().toLowerCase())
    .filter((segment) => segment !== '')
  if (parts.length === 0) return name
  const last = parts.pop() as string
  const text = parts.length === 0 ? last : `${parts.join(' ')}: ${last}`
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** Derives the card view; pure, so each framework only supplies a ticking `now`. */
export function cardView(
  data: ConfirmationCardData,
  now: number,
  grantDays = DEFAULT_GRANT_DAYS,
): ConfirmationCardView {
  const secondsLeft = Math.max(0, Math.ceil((data.expiresAt - now) / 1000))
  const minutes = Math.floor(secondsLeft / 60)
  const seconds = secondsLeft % 60
  const undoable = data.undoable === true
  const id = `toolmark-card-${data.confirmId}`
  return {
    confirmId: data.confirmId,
    tool: data.tool,
    title: data.title,
    heading: data.title ?? readableToolName(data.tool),
    summary: data.summary,
    target: data.target,
    changes: data.changes,
    destructive: data.destructive,
    undoable,
    approveLabel: data.destructive ? 'Delete' : 'Approve',
    rejectLabel: 'Reject',
    warning: data.destructive && !undoable ? DESTRUCTIVE_WARNING : undefined,
    undoNote: undoable ? UNDOABLE_NOTE : undefined,
    role: 'alertdialog',
    titleId: `${id}-title`,
    summaryId: `${id}-summary`,
    expiresAt: data.expiresAt,
    secondsLeft,
    countdown: `${minutes}:${String(seconds).padStart(2, '0')}`,
    expired: secondsLeft === 0,
    grantChoices: grantChoices(data, grantDays),
  }
}

/** Options of `attachCard`. */
export interface AttachCardOptions {
  /** Rejects the confirmation; called on Escape while focus is inside the card. */
  reject(): unknown
  /**
   * Move focus to the Reject button (marked with `REJECT_ATTRIBUTE`) when the card appears. Pass it when
   * the card answers something the user just did (sent a chat message); it never takes focus from a
   * text field the user has started typing in.
   */
  autoFocus?: boolean
}

/** An input, textarea or editable element that holds text the user is typing. */
function typingIn(element: Element | null): boolean {
  if (!element) return false
  if ((element as HTMLElement).isContentEditable) return (element.textContent ?? '') !== ''
  const tag = element.tagName
  if (tag !== 'INPUT' && tag !== 'TEXTAREA') return false
  const field = element as HTMLInputElement
  return !['button', 'submit', 'reset', 'checkbox', 'radio'].includes(field.type) && field.value !== ''
}

/**
 * Keyboard and focus behaviour of one mounted card, for every framework: Escape inside the card rejects
 * it (and does not reach handlers outside, such as a panel that closes on Escape); with `autoFocus`,
 * focus moves to Reject. The returned function detaches it and puts focus back where it was before it
 * entered the card, when focus is still in the card or was lost with it. Call it when the card unmounts.
 */
export function attachCard(card: HTMLElement, options: AttachCardOptions): () => void {
  const doc = card.ownerDocument
  let returnTo: HTMLElement | undefined
  const outside = (node: EventTarget | null): node is HTMLElement =>
    node !== null &&
    (node as Node).nodeType === 1 &&
    typeof (node as HTMLElement).focus === 'function' &&
    node !== doc.body &&
    !card.contains(node as Node)

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape' || event.defaultPrevented || event.isComposing) return
    event.preventDefault()
    event.stopPropagation()
    options.reject()
  }
  const onFocusIn = (event: FocusEvent): void => {
    if (outside(event.relatedTarget)) returnTo = event.relatedTarget
  }
  card.addEventListener('keydown', onKeyDown)
  card.addEventListener('focusin', onFocusIn)

  if (options.autoFocus && !typingIn(doc.activeElement)) {
    const reject = card.querySelector<HTMLElement>(`[${REJECT_ATTRIBUTE}]`)
    if (reject) {
      if (outside(doc.activeElement)) returnTo = doc.activeElement
      reject.focus()
    }
  }

  return () => {
    card.removeEventListener('keydown', onKeyDown)
    card.removeEventListener('focusin', onFocusIn)
    const active = doc.activeElement
    const lost = !active || active === doc.body || card.contains(active)
    if (lost && returnTo?.isConnected) returnTo.focus()
  }
}
