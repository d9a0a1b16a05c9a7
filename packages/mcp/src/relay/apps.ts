import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type {
  CallToolResult,
  ClientCapabilities,
  ReadResourceResult,
  RequestId,
  Resource,
  Tool,
} from '@modelcontextprotocol/server'
import type { ToolManifest } from '@toolmark/core'
import { llmName } from '@toolmark/core/adapter'
import type { PairingConfirmedMessage, PairingConfirmMessage } from '../protocol/messages.ts'
import { CARD_SCRIPT, CARD_STYLE } from './apps-card.ts'
import type { Tab } from './tabs.ts'

/** The MCP Apps extension a client declares in `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui'
/** The MIME type of an MCP Apps HTML resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app'
/** The confirmation card: one static resource, rendered by the host for a confirming page tool. */
export const CARD_URI = 'ui://toolmark/confirm.html'
/** App-only tool: the confirmation waiting for the card's call (needs the card's key). */
export const CARD_TOOL = 'toolmark_card'
/** App-only tool: the card's answer (needs the single-use token the card got with the confirmation). */
export const ANSWER_TOOL = 'toolmark_card_answer'

/** How long `toolmark_card` waits for the page to ask for a confirmation of the card's call. */
const CARD_WAIT_MS = 15_000
/** A confirmation no card took within this goes to elicitation or the in-page card. */
const UNCLAIMED_MS = 15_000
/** How long past the page's expiry the card's answer is still taken: the page refuses it then. */
const ANSWER_GRACE_MS = 1_000

/** True when the client declared MCP Apps with the HTML profile (`extensions["io.modelcontextprotocol/ui"]`). */
export function canShowApps(capabilities: ClientCapabilities | undefined): boolean {
  const ui = (capabilities?.extensions as Record<string, { mimeTypes?: unknown }> | undefined)?.[
    APPS_EXTENSION
  ]
  return Array.isArray(ui?.mimeTypes) && ui.mimeTypes.includes(APP_MIME_TYPE)
}

/** A page tool a confirmation card is offered for: consequential or destructive. */
export function confirms(tool: ToolManifest): boolean {
  return tool.hints?.consequential === true || tool.hints?.destructive === true
}

/** A confirmation waiting for the card of its call. */
interface Waiting {
  readonly tab: Tab
  readonly msg: PairingConfirmMessage
  /** The MCP name of the tool the model called (`t1__challenge__delete`). */
  readonly listed: string
  /** The JSON-RPC id of the model's `tools/call`, as a string. */
  readonly requestId: string | undefined
  /** Set once a card took it: only that card can answer. */
  token?: string
  settle(answer: Omit<PairingConfirmedMessage, 'type' | 'confirmId'>): void
}

/**
 * Confirmation cards for MCP Apps hosts. A confirming page tool is listed with the card as its UI;
 * the host renders it for the model's call. The card takes the confirmation with `toolmark_card`
 * (its key is in the card's HTML only) and answers with `toolmark_card_answer` and the single-use,
 * expiring token it got: the model has neither, so it cannot approve, even where a host offered it
 * the app-only tools. Every answer goes to the page as the one `confirmed` the pairing protocol has.
 */
export class AppCards {
  /** Written into the card's HTML: the proof that a `toolmark_card` call comes from the card. */
  readonly #key = randomBytes(32).toString('base64url')
  readonly #waiting = new Set<Waiting>()
  /** The model's calls in flight: their abort signal → their JSON-RPC id. */
  readonly #requests = new WeakMap<AbortSignal, string>()
  /** `toolmark_card` calls waiting for a confirmation to appear. */
  readonly #listeners = new Set<() => void>()
  #html: string | undefined

  /** Remembers the JSON-RPC id of the model's call that `signal` belongs to. */
  track(signal: AbortSignal, requestId: RequestId): void {
    this.#requests.set(signal, String(requestId))
  }

  /** The card, as `resources/list` lists it. */
  resource(): Resource {
    return {
      uri: CARD_URI,
      name: 'toolmark-confirm',
      title: 'Confirmation card',
      description: 'Asks the user to approve or decline a call of a paired page tool.',
      mimeType: APP_MIME_TYPE,
    }
  }

  /** `resources/read` of the card: the HTML, with a strict CSP and no external resource. */
  read(): ReadResourceResult {
    this.#html ??= cardHtml(this.#key)
    return {
      contents: [
        {
          uri: CARD_URI,
          mimeType: APP_MIME_TYPE,
          text: this.#html,
          _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
        },
      ],
    }
  }

  /** The `_meta` that shows the card for a confirming tool's calls. */
  uiMeta(): Record<string, unknown> {
    return { ui: { resourceUri: CARD_URI } }
  }

  /** The two app-only tools, as `tools/list` lists them. */
  tools(): Tool[] {
    const appOnly = { ui: { visibility: ['app'] } }
    return [
      {
        name: CARD_TOOL,
        title: 'Confirmation card: read',
        description: 'Used by the confirmation card only. Never call it.',
        inputSchema: {
          type: 'object',
          properties: {
            key: { type: 'string' },
            tool: { type: 'string' },
            requestId: { type: 'string' },
          },
          required: ['key'],
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
        _meta: appOnly,
      },
      {
        name: ANSWER_TOOL,
        title: 'Confirmation card: answer',
        description: 'Used by the confirmation card only, with the user’s answer. Never call it.',
        inputSchema: {
          type: 'object',
          properties: { token: { type: 'string' }, approved: { type: 'boolean' } },
          required: ['token', 'approved'],
        },
        annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
        _meta: appOnly,
      },
    ]
  }

  /**
   * Offers the page's confirmation to the card of the model's call and resolves the answer. No card
   * takes it within 15 s: `fallback` decides (elicitation, or the in-page card). Past `expiresAt`
   * (plus 1 s): `expired`. The model's call cancelled: `cancelled`.
   */
  ask(
    tab: Tab,
    msg: PairingConfirmMessage,
    signal: AbortSignal,
    fallback: () => Promise<PairingConfirmedMessage>,
  ): Promise<PairingConfirmedMessage> {
    return new Promise((resolve) => {
      const base = { type: 'confirmed' as const, confirmId: msg.confirmId }
      let done = false
      const finish = (answer: PairingConfirmedMessage | Promise<PairingConfirmedMessage>): void => {
        if (done) return
        done = true
        this.#waiting.delete(entry)
        clearTimeout(unclaimed)
        clearTimeout(expiry)
        signal.removeEventListener('abort', onAbort)
        resolve(answer)
      }
      const entry: Waiting = {
        tab,
        msg,
        listed: llmName(`${tab.id}.${msg.tool}`),
        requestId: this.#requests.get(signal),
        settle: (answer) => finish({ ...base, ...answer }),
      }
      const onAbort = (): void => finish({ ...base, approved: false, reason: 'cancelled' })
      const unclaimed = setTimeout(() => {
        if (entry.token === undefined) finish(fallback())
      }, UNCLAIMED_MS)
      const expiry = setTimeout(
        () => finish({ ...base, approved: false, reason: 'expired' }),
        Math.max(1, msg.expiresAt - Date.now()) + ANSWER_GRACE_MS,
      )
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      this.#waiting.add(entry)
      for (const listener of [...this.#listeners]) listener()
    })
  }

  /**
   * `toolmark_card`: with the card's key, the confirmation waiting for the card's call (by its
   * JSON-RPC id, else the oldest for its tool), waiting up to 15 s for the page to ask. The first
   * card to take a confirmation gets its token; nothing else does.
   */
  async card(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    if (!sameSecret(args.key, this.#key)) return refusal('This tool is only for the confirmation card.')
    const tool = typeof args.tool === 'string' ? args.tool : undefined
    const requestId =
      typeof args.requestId === 'string' || typeof args.requestId === 'number'
        ? String(args.requestId)
        : undefined
    const entry = await this.#next(tool, requestId, signal)
    if (!entry)
      return {
        content: [{ type: 'text', text: 'No confirmation is waiting.' }],
        structuredContent: { status: 'none' },
      }
    const token = randomBytes(32).toString('base64url')
    entry.token = token
    const { msg, tab } = entry
    const card = {
      status: 'pending',
      token,
      tool: msg.tool,
      ...(msg.title !== undefined && { title: msg.title }),
      summary: msg.summary,
      ...(msg.target !== undefined && { target: msg.target }),
      changes: msg.changes,
      destructive: msg.destructive,
      undoable: msg.undoable === true,
      expiresAt: msg.expiresAt,
      page: { tab: tab.id, origin: tab.origin, ...(tab.title !== undefined && { title: tab.title }) },
    }
    return { content: [{ type: 'text', text: 'The card shows the confirmation.' }], structuredContent: card }
  }

  /**
   * `toolmark_card_answer`: the user's answer with the card's token. A token is good once and only
   * until the confirmation expires; anything else is refused and answers nothing to the page.
   */
  answer(args: Record<string, unknown>): CallToolResult {
    const entry = [...this.#waiting].find((w) => w.token !== undefined && sameSecret(args.token, w.token))
    if (!entry || typeof args.approved !== 'boolean')
      return refusal('This confirmation is not open: it was answered, it expired or it was withdrawn.')
    if (Date.now() > entry.msg.expiresAt) {
      entry.settle({ approved: false, reason: 'expired' })
      return refusal('This confirmation expired: nothing ran.')
    }
    entry.settle(args.approved ? { approved: true } : { approved: false, reason: 'declined' })
    return {
      content: [
        {
          type: 'text',
          text: args.approved ? 'Approved: the page runs the call.' : 'Declined: the call does not run.',
        },
      ],
    }
  }

  /** The first untaken confirmation for the card's call, waiting for one until 15 s or `signal`. */
  #next(
    tool: string | undefined,
    requestId: string | undefined,
    signal: AbortSignal,
  ): Promise<Waiting | undefined> {
    const find = (): Waiting | undefined => {
      for (const w of this.#waiting) {
        if (w.token !== undefined) continue
        if (
          requestId !== undefined && w.requestId !== undefined ? w.requestId === requestId : w.listed === tool
        )
          return w
      }
      return undefined
    }
    const found = find()
    if (found || signal.aborted) return Promise.resolve(found)
    return new Promise((resolve) => {
      const stop = (value: Waiting | undefined): void => {
        this.#listeners.delete(listener)
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      }
      const listener = (): void => {
        const w = find()
        if (w) stop(w)
      }
      const onAbort = (): void => stop(undefined)
      const timer = setTimeout(() => stop(undefined), CARD_WAIT_MS)
      this.#listeners.add(listener)
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }
}

function refusal(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/** Compares a presented secret with the expected one in constant time. */
function sameSecret(presented: unknown, expected: string): boolean {
  if (typeof presented !== 'string') return false
  const a = Buffer.from(presented)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64')

/**
 * The card's HTML: its script and style inline, allowed by hash in a CSP that forbids everything
 * else (no network, no external script, style, image or frame). The key is base64url.
 */
export function cardHtml(key: string): string {
  const script = CARD_SCRIPT.replace('__TOOLMARK_CARD_KEY__', key)
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${sha256(script)}'`,
    `style-src 'sha256-${sha256(CARD_STYLE)}'`,
    "connect-src 'none'",
    "img-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Confirm</title>
<style>${CARD_STYLE}</style></head>
<body><main id="card" aria-live="polite"><p id="status">Loading the confirmation…</p></main>
<script>${script}</script></body></html>`
}
