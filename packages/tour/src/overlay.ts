import type { TourOverlay, TourView } from './runner.ts'

/** Options of `domOverlay`. */
export interface DomOverlayOptions {
  /** Where the overlay is appended (default `document.body`). */
  container?: HTMLElement
  /** Button and status labels (app-localized). */
  labels?: Partial<typeof LABELS>
  /**
   * What the dialog must never cover, such as the chat input: elements, or a selector read each time
   * the dialog is placed (so elements rendered later count too). The dialog takes the first corner
   * of the window (bottom right, bottom left, top right, top left) that overlaps none of them, and
   * among those one that leaves the highlighted anchor free. It is placed again on each step, on
   * scroll and resize, and when elements are added to or removed from the page. Default none: bottom right.
   */
  avoid?: readonly Element[] | string
}

/** A box in window coordinates, as `getBoundingClientRect` gives it. */
export interface Box {
  left: number
  top: number
  width: number
  height: number
}

/** The corners of the window the dialog can sit in, in the order they are tried. */
export const CORNERS = ['bottom-right', 'bottom-left', 'top-right', 'top-left'] as const

/** A corner of the window the dialog can sit in. */
export type Corner = (typeof CORNERS)[number]

/** The dialog's distance from the window's edges, in CSS pixels. */
export const MARGIN = 16

/** The box of a `size` dialog in `corner` of a `view` window, `MARGIN` from its edges. */
export function cornerBox(
  corner: Corner,
  size: { width: number; height: number },
  view: { width: number; height: number },
): Box {
  return {
    left: corner.endsWith('left') ? MARGIN : view.width - MARGIN - size.width,
    top: corner.startsWith('top') ? MARGIN : view.height - MARGIN - size.height,
    width: size.width,
    height: size.height,
  }
}

/** The area two boxes share (0 when they only touch). */
export function overlap(a: Box, b: Box): number {
  const w = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left)
  const h = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top)
  return w > 0 && h > 0 ? w * h : 0
}

/**
 * Where the dialog goes: the first corner (in {@link CORNERS} order) whose box covers the least
 * of `avoid` (none, when one can), and among those the least of `spare` (the highlighted anchor).
 */
export function placeDialog(
  size: { width: number; height: number },
  view: { width: number; height: number },
  avoid: readonly Box[],
  spare: readonly Box[] = [],
): Corner {
  const scored = CORNERS.map((corner) => {
    const box = cornerBox(corner, size, view)
    const cover = (boxes: readonly Box[]) => boxes.reduce((sum, b) => sum + overlap(box, b), 0)
    return { corner, avoid: cover(avoid), spare: cover(spare) }
  })
  // A stable sort: among equal costs the earlier corner stays first.
  return scored.sort((a, b) => a.avoid - b.avoid || a.spare - b.spare)[0]!.corner
}

let overlays = 0

const LABELS = {
  run: 'Do it',
  next: 'Next',
  exit: 'Exit tour',
  running: 'Working… confirm in the page if asked.',
  failed: 'That did not work. Try again, skip or exit.',
  step: (n: number, total: number) => `Step ${n} of ${total}`,
  state: 'Current values',
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v)
  if (text !== undefined) node.textContent = text
  return node
}

/** `state()` as `key: value` lines (the registry already redacted sensitive values). */
function stateLines(state: unknown): string[] {
  if (state === undefined) return []
  if (state === null || typeof state !== 'object') return [String(state)]
  return Object.entries(state as Record<string, unknown>).map(
    ([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`,
  )
}

/**
 * The default tour overlay: unstyled and accessible. A non-modal `role="dialog"` with the step
 * text in an `aria-live="polite"` region, the tool's current values, and Do it / Next / Exit
 * buttons; a highlight box over the anchor. Both are `position: fixed` (no layout shift) and carry
 * `data-toolmark-tour*` attributes for the app's CSS. Focus moves to the dialog's first button on
 * each step and returns where it was when the tour ends; Escape leaves the tour.
 */
export function domOverlay(options: DomOverlayOptions = {}): TourOverlay {
  const labels = { ...LABELS, ...options.labels }
  let root: HTMLElement | undefined
  let highlight: HTMLElement | undefined
  let live: HTMLElement | undefined
  let body: HTMLElement | undefined
  let restore: Element | null = null
  let view: TourView | undefined
  let anchor: Element | null = null
  let frame = 0
  /** With `avoid`: places the dialog again when the page's elements change (an avoided one appears). */
  let watcher: MutationObserver | undefined
  let focusKey = ''

  const place = (): void => {
    frame = 0
    if (!highlight || !root) return
    const r = anchor?.getBoundingClientRect()
    highlight.hidden = !r
    if (r) {
      highlight.style.top = `${r.top}px`
      highlight.style.left = `${r.left}px`
      highlight.style.width = `${r.width}px`
      highlight.style.height = `${r.height}px`
    }
    const avoid = options.avoid
    if (avoid === undefined) return
    // Elements not on the page (or hidden) have an empty box and cover nothing.
    const boxes = [...(typeof avoid === 'string' ? document.querySelectorAll(avoid) : avoid)].map((e) =>
      e.getBoundingClientRect(),
    )
    const page = document.documentElement
    const view = { width: page.clientWidth, height: page.clientHeight }
    const corner = placeDialog(root.getBoundingClientRect(), view, boxes, r ? [r] : [])
    // `inset` is top, right, bottom, left.
    root.style.inset = ['top', 'right', 'bottom', 'left']
      .map((side) => (corner.includes(side) ? `${MARGIN}px` : 'auto'))
      .join(' ')
    root.setAttribute('data-toolmark-tour-corner', corner)
  }
  const schedule = (): void => {
    if (!frame) frame = requestAnimationFrame(place)
  }
  const onKey = (e: KeyboardEvent): void => {
    if (e.key === 'Escape' && view) {
      e.preventDefault()
      view.exit()
    }
  }
  const mount = (): void => {
    const doc = document
    restore = doc.activeElement
    const id = `toolmark-tour-${++overlays}`
    root = el('div', {
      role: 'dialog',
      'aria-modal': 'false',
      'aria-labelledby': `${id}-title`,
      'aria-describedby': `${id}-text`,
      'data-toolmark-tour': '',
      'data-toolmark-tour-corner': 'bottom-right',
      style: `position:fixed;z-index:2147483647;bottom:${MARGIN}px;right:${MARGIN}px`,
    })
    highlight = el('div', {
      'data-toolmark-tour-highlight': '',
      'aria-hidden': 'true',
      style: 'position:fixed;z-index:2147483646;pointer-events:none;outline:2px solid;outline-offset:2px',
    })
    body = el('div')
    live = el('p', { id: `${id}-text`, 'aria-live': 'polite', 'data-toolmark-tour-text': '' })
    root.append(el('h2', { id: `${id}-title`, 'data-toolmark-tour-title': '' }), live, body)
    const container = options.container ?? doc.body
    container.append(highlight, root)
    doc.addEventListener('keydown', onKey, true)
    if (options.avoid !== undefined && typeof MutationObserver === 'function') {
      watcher = new MutationObserver(schedule)
      watcher.observe(doc.body, { childList: true, subtree: true })
    }
    addEventListener('scroll', schedule, true)
    addEventListener('resize', schedule)
  }

  return {
    show(next) {
      if (!root) mount()
      view = next
      const title = root!.querySelector('[data-toolmark-tour-title]')!
      title.textContent = `${next.tour.title} · ${labels.step(next.index + 1, next.tour.steps.length)}`
      const status = next.phase === 'running' ? labels.running : next.phase === 'failed' ? labels.failed : ''
      const text = status ? `${next.step.text} ${status}` : next.step.text
      if (live!.textContent !== text) live!.textContent = text
      const lines = stateLines(next.state)
      const parts: Node[] = []
      if (lines.length > 0) {
        const list = el('dl', { 'data-toolmark-tour-state': '', 'aria-label': labels.state })
        for (const line of lines) list.append(el('div', {}, line))
        parts.push(list)
      }
      const actions = el('div', { 'data-toolmark-tour-actions': '' })
      if (next.run) {
        const run = el('button', { type: 'button', 'data-action': 'run' }, labels.run)
        run.addEventListener('click', () => next.run?.())
        actions.append(run)
      }
      const skip = el('button', { type: 'button', 'data-action': 'next' }, labels.next)
      skip.addEventListener('click', () => next.next())
      if (next.phase === 'running') skip.disabled = true
      const exit = el('button', { type: 'button', 'data-action': 'exit' }, labels.exit)
      exit.addEventListener('click', () => next.exit())
      actions.append(skip, exit)
      parts.push(actions)
      body!.replaceChildren(...parts)
      if (next.anchor !== anchor) {
        anchor = next.anchor
        anchor?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' })
      }
      place()
      // Focus the first enabled button when a step (or its phase) changes, unless the user is
      // typing in the highlighted field; a mere re-render never moves focus.
      const key = `${next.tour.id}:${next.index}:${next.phase}`
      if (key !== focusKey && !anchor?.contains(document.activeElement)) {
        ;(actions.querySelector('button:not([disabled])') as HTMLElement | null)?.focus({
          preventScroll: true,
        })
      }
      focusKey = key
    },
    close() {
      if (!root) return
      document.removeEventListener('keydown', onKey, true)
      removeEventListener('scroll', schedule, true)
      removeEventListener('resize', schedule)
      watcher?.disconnect()
      watcher = undefined
      if (frame) cancelAnimationFrame(frame)
      root.remove()
      highlight?.remove()
      root = highlight = live = body = undefined
      view = undefined
      anchor = null
      focusKey = ''
      if (restore instanceof HTMLElement && restore.isConnected) restore.focus({ preventScroll: true })
      restore = null
    },
  }
}
