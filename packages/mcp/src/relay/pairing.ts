import { randomBytes, randomInt } from 'node:crypto'
import type { CallToolResult } from '@modelcontextprotocol/server'
import type { WebSocket } from 'ws'
import { errorText } from './results.ts'
import type { Tab, Tabs } from './tabs.ts'

/** Open connections not paired yet (before and after their hello) allowed at once. */
export const MAX_PENDING = 16
const MAX_WRONG_CODES = 5
/** How long a tab's socket has to answer a ping before a resume of that tab counts it as gone. */
const LIVENESS_TIMEOUT_MS = 5_000

/**
 * Pairing: one-time codes offered to new tabs, the code the user gives `toolmark_pair`, resume
 * tokens for tabs the user allowed to re-pair after a reload, and the sockets still unpaired (what
 * the pending-pairing limit counts). Codes and tokens never reach a log.
 */
export class Pairing {
  /** Every open page socket that is not paired yet, from the upgrade on. */
  readonly unpaired = new Set<WebSocket>()
  /** Resume token → the tab id and origin it may resume (the user allowed it when pairing). */
  readonly #resumable = new Map<string, { id: string; origin: string }>()
  readonly #usedCodes = new Set<string>()
  #wrongCodes = 0

  constructor(
    private readonly tabs: Tabs,
    private readonly options: { ttlMs: number; log: (line: string) => void },
  ) {}

  /**
   * A page's hello: a new tab that is offered a code, or, for a valid resume token of this origin
   * whose tab's socket no longer answers, that tab paired again. Undefined when the socket left
   * meanwhile.
   */
  async hello(ws: WebSocket, origin: string, token: string | undefined): Promise<Tab | undefined> {
    const { tabs, options } = this
    const resumed = token === undefined ? undefined : this.#resumable.get(token)
    if (token !== undefined && resumed?.origin !== origin) this.#resumable.delete(token) // void from another origin
    if (token === undefined || !resumed || resumed.origin !== origin)
      return this.#offer(tabs.add(tabs.nextId(), origin, ws))
    // A tab whose socket still answers is in use: a window it opened (a same-origin window.open
    // copies sessionStorage) or a duplicated tab never takes it over. A reloaded page's old socket
    // is closing: it does not answer, and the new one takes over.
    const live = [...tabs.all].find((t) => t.id === resumed.id)
    const inUse = live !== undefined && (await answersPing(live.ws, LIVENESS_TIMEOUT_MS))
    if (ws.readyState !== ws.OPEN) return undefined // the new socket left while the old one was asked
    if (inUse || this.#resumable.get(token) !== resumed) {
      if (inUse)
        options.log(
          `tab ${resumed.id} (${origin}) is still open: another page presenting its resume gets a new pairing`,
        )
      return this.#offer(tabs.add(tabs.nextId(), origin, ws))
    }
    this.#resumable.delete(token) // single use: a fresh one follows
    for (const t of tabs.all) {
      if (t.id !== resumed.id) continue
      tabs.all.delete(t)
      t.ws.terminate()
    }
    const tab = tabs.add(resumed.id, origin, ws)
    tabs.gone.delete(tab.id)
    options.log(`tab ${tab.id} (${origin}) resumed after a reload`)
    this.#paired(tab, true)
    return tab
  }

  /** `toolmark_pair`: the code the user read in the page pairs that tab, once. */
  pair(args: Record<string, unknown>): CallToolResult {
    const code = typeof args.code === 'string' ? args.code.replace(/\D/g, '') : ''
    if (code === '') return errorText('Pass the pairing code the page shows.')
    const now = Date.now()
    const tab = [...this.tabs.all].find((t) => !t.paired && t.code === code && (t.codeExpiresAt ?? 0) > now)
    if (!tab) {
      if (this.#usedCodes.has(code))
        return errorText('This pairing code was already used: each code pairs once.')
      this.#wrongCodes++
      if (this.#wrongCodes >= MAX_WRONG_CODES) {
        // Guessing: every open code is void, the pages must ask for new ones.
        this.#wrongCodes = 0
        for (const t of this.tabs.all)
          if (!t.paired) this.#refuse(t, 'Too many wrong pairing codes: pair again')
      }
      return errorText('Wrong or expired pairing code.')
    }
    this.#wrongCodes = 0
    this.#usedCodes.add(code)
    const allowReload = args.allowReload === true
    this.#paired(tab, allowReload)
    this.options.log(
      `paired tab ${tab.id} (${tab.origin})${allowReload ? ', may resume after a reload' : ''}`,
    )
    return {
      content: [
        {
          type: 'text',
          text: `Paired tab ${tab.id} (${tab.origin}). Its tools are listed with the prefix ${tab.id}__.`,
        },
      ],
    }
  }

  #paired(tab: Tab, resume: boolean): void {
    tab.paired = true
    this.unpaired.delete(tab.ws)
    clearTimeout(tab.codeTimer)
    delete tab.code
    let token: string | undefined
    if (resume) {
      token = randomBytes(32).toString('base64url')
      this.#resumable.set(token, { id: tab.id, origin: tab.origin })
    }
    this.tabs.send(
      tab,
      token ? { type: 'paired', tab: tab.id, resume: token } : { type: 'paired', tab: tab.id },
    )
    this.tabs.changed()
  }

  #offer(tab: Tab): Tab {
    const { ttlMs, log } = this.options
    let code: string
    do code = String(randomInt(0, 100_000_000)).padStart(8, '0')
    while (this.#usedCodes.has(code) || [...this.tabs.all].some((t) => t.code === code))
    tab.code = code
    tab.codeExpiresAt = Date.now() + ttlMs
    tab.codeTimer = setTimeout(() => this.#refuse(tab, 'The pairing code expired: pair again'), ttlMs)
    this.tabs.send(tab, {
      type: 'pairing',
      code: `${code.slice(0, 4)}-${code.slice(4)}`,
      expiresAt: tab.codeExpiresAt,
    })
    log(`tab ${tab.id} (${tab.origin}) waits for pairing`)
    return tab
  }

  #refuse(tab: Tab, message: string): void {
    this.tabs.send(tab, { type: 'error', message })
    tab.ws.close(4003, message.slice(0, 100))
  }
}

/** Resolves true when `ws` answers a ping, false once it closes or stays silent for `ms`. */
function answersPing(ws: WebSocket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (ws.readyState !== ws.OPEN) return resolve(false)
    const done = (alive: boolean): void => {
      clearTimeout(timer)
      ws.off('pong', onPong)
      ws.off('close', onClose)
      resolve(alive)
    }
    const onPong = (): void => done(true)
    const onClose = (): void => done(false)
    const timer = setTimeout(() => done(false), ms)
    ws.on('pong', onPong)
    ws.on('close', onClose)
    ws.ping()
  })
}
