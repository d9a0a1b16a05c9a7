import type { ChatMessage } from '@toolmark/server/contract'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'

/** What the HTTP transport's traffic looks like to the test: one call per frame, in the page's order. */
export interface HttpBridgeRecorder {
  /** Each `message` event of a `/toolmark/events` stream and each `/toolmark/messages` POST body. */
  onFrame(direction: 'sent' | 'received', payload: string): void
  /** The page connection a stream's `ready` event named (the latest is the live one). */
  onReady?(stream: string): void
}

/**
 * Records the page's bridge traffic over the HTTP transport through the browser's own network
 * events (Chrome DevTools Protocol: `Network.eventSourceMessageReceived` for the event stream's
 * messages, `Network.requestWillBeSent` for the POSTs), in the order the browser saw it. Nothing
 * is injected into the page.
 */
export async function recordHttpBridge(
  context: BrowserContext,
  page: Page,
  recorder: HttpBridgeRecorder,
): Promise<void> {
  const cdp = await context.newCDPSession(page)
  const streams = new Set<string>()
  cdp.on('Network.requestWillBeSent', ({ requestId, request }) => {
    const path = new URL(request.url).pathname
    if (path === '/toolmark/events') streams.add(requestId)
    if (path !== '/toolmark/messages' || request.method !== 'POST') return
    const entries = (request as { postDataEntries?: Array<{ bytes?: string }> }).postDataEntries
    const body =
      request.postData ??
      (entries ? Buffer.from(entries.map((e) => e.bytes ?? '').join(''), 'base64').toString('utf8') : '')
    recorder.onFrame('sent', body)
  })
  cdp.on('Network.eventSourceMessageReceived', ({ requestId, eventName, data }) => {
    if (!streams.has(requestId)) return
    if (eventName === 'message') recorder.onFrame('received', data)
    else if (eventName === 'ready') {
      const stream = (JSON.parse(data) as { stream?: unknown }).stream
      if (typeof stream === 'string') recorder.onReady?.(stream)
    }
  })
  await cdp.send('Network.enable')
}

/**
 * The icon a browser shows in the tab answers: the page's `<link rel="icon">` (a `data:` URL needs no
 * request) or, without one, `/favicon.ico`, which a headed browser asks for (headless Chromium does not,
 * so watching the requests alone would miss a 404). Returns the URL and the HTTP status (200 for `data:`).
 */
export async function iconStatus(page: Page): Promise<{ url: string; status: number }> {
  const declared = await page.evaluate(
    () => document.querySelector<HTMLLinkElement>('link[rel~="icon"]')?.href ?? null,
  )
  const url = declared ?? new URL('/favicon.ico', page.url()).href
  if (url.startsWith('data:')) return { url, status: 200 }
  const response = await page.context().request.get(url)
  return { url, status: response.status() }
}

/** One protocol frame seen on the page's bridge: its WebSocket, or its HTTP transport (SSE + POST). */
export interface Frame {
  direction: 'sent' | 'received'
  message: Record<string, unknown>
}

/** Resolves when `predicate` holds for a frame (past or future); rejects after `timeoutMs`. */
type FrameWaiter = { predicate: (frame: Frame) => boolean; resolve: (frame: Frame) => void }

/**
 * A page of the demo with its bridge traffic recorded: every JSON frame the page sends or receives
 * on `/toolmark/ws` (WebSocket) or over `/toolmark/events` + `/toolmark/messages` (HTTP transport),
 * across reloads, so tests can read clientIds, manifests and confirmIds.
 */
export class DemoPage {
  readonly frames: Frame[] = []
  private waiters: FrameWaiter[] = []

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly baseUrl: string,
  ) {
    page.on('websocket', (socket) => {
      if (!socket.url().includes('/toolmark/ws')) return
      socket.on('framesent', ({ payload }) => this.record('sent', payload))
      socket.on('framereceived', ({ payload }) => this.record('received', payload))
    })
  }

  /**
   * A new browser context (a new session cookie, so a new user) with the demo open at `path`;
   * `options` sets e.g. the viewport.
   */
  static async open(
    browser: Browser,
    baseUrl: string,
    path = '/',
    options: BrowserContextOptions = {},
  ): Promise<DemoPage> {
    const context = await browser.newContext(options)
    const page = await context.newPage()
    const demo = new DemoPage(context, page, baseUrl)
    await recordHttpBridge(context, page, {
      onFrame: (direction, payload) => demo.record(direction, payload),
    })
    await demo.goto(path)
    return demo
  }

  /**
   * Starts over in the same browser tab (cheaper than a new context): forgets the conversation kept
   * in localStorage and loads `path`, so the page starts with fresh data, a new conversation and a new
   * clientId. Clears the recorded frames. Returns the new clientId.
   */
  async fresh(path = '/'): Promise<string> {
    await this.page.evaluate(() => localStorage.clear())
    this.frames.length = 0
    return this.goto(path)
  }

  private record(direction: Frame['direction'], payload: string | Buffer): void {
    if (typeof payload !== 'string') return
    let message: unknown
    try {
      message = JSON.parse(payload)
    } catch {
      return
    }
    if (typeof message !== 'object' || message === null) return
    const frame = { direction, message: message as Record<string, unknown> }
    this.frames.push(frame)
    for (const waiter of [...this.waiters]) {
      if (waiter.predicate(frame)) {
        this.waiters = this.waiters.filter((w) => w !== waiter)
        waiter.resolve(frame)
      }
    }
  }

  /** The first frame (already seen or coming) for which `predicate` holds. */
  waitForFrame(predicate: (frame: Frame) => boolean, timeoutMs = 10_000, from = 0): Promise<Frame> {
    const seen = this.frames.slice(from).find(predicate)
    if (seen) return Promise.resolve(seen)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter)
        reject(new Error(`No matching bridge frame within ${timeoutMs} ms`))
      }, timeoutMs)
      const waiter: FrameWaiter = {
        predicate,
        resolve: (frame) => {
          clearTimeout(timer)
          resolve(frame)
        },
      }
      this.waiters.push(waiter)
    })
  }

  /**
   * Waits until the page has sent a manifest listing `tool` (from frame index `from` on) and returns
   * the page load's clientId.
   */
  async waitForTool(tool: string, from = 0): Promise<string> {
    const frame = await this.waitForFrame(
      ({ direction, message }) =>
        direction === 'sent' &&
        message.type === 'manifest' &&
        Array.isArray(message.tools) &&
        message.tools.some((entry: { name?: unknown }) => entry.name === tool),
      10_000,
      from,
    )
    return frame.message.clientId as string
  }

  /**
   * The result the page sent for the first agent call of `tool` at or after frame index `from` (waits
   * for both).
   */
  async toolResult(tool: string, from = 0): Promise<Record<string, unknown>> {
    const call = await this.waitForFrame(
      ({ direction, message }) =>
        direction === 'received' && message.type === 'call' && message.tool === tool,
      15_000,
      from,
    )
    const result = await this.waitForFrame(
      ({ direction, message }) =>
        direction === 'sent' && message.type === 'result' && message.id === call.message.id,
      15_000,
      from,
    )
    return result.message.result as Record<string, unknown>
  }

  /** Loads `path` and waits for the chat and a manifest with the page's tools. Returns the clientId. */
  async goto(path = '/'): Promise<string> {
    const from = this.frames.length
    await this.page.goto(new URL(path, this.baseUrl).href)
    await this.page.getByTestId('chat-input').waitFor({ state: 'attached' })
    return this.waitForTool(path.startsWith('/settings') ? 'settings.updateCard' : 'challenges.search', from)
  }

  /** A full reload: a new page load with a new clientId. Returns it once its manifest arrived. */
  async reload(): Promise<string> {
    const from = this.frames.length
    await this.page.reload()
    await this.page.getByTestId('chat-input').waitFor({ state: 'attached' })
    const path = new URL(this.page.url()).pathname
    return this.waitForTool(path.startsWith('/settings') ? 'settings.updateCard' : 'challenges.search', from)
  }

  /** Counts every confirmation card that appears in the page from now on (read with {@link cardsSeen}). */
  async countCards(): Promise<void> {
    await this.page.evaluate(() => {
      const cards: string[] = []
      const seen = new WeakSet<Element>()
      Object.assign(window, { __cards: cards })
      const record = () => {
        for (const card of document.querySelectorAll('[data-testid="confirm-card"]')) {
          if (seen.has(card)) continue
          seen.add(card)
          cards.push(card.getAttribute('data-tool') ?? '')
        }
      }
      record()
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true })
    })
  }

  /** The tools of the cards seen since {@link countCards}. */
  cardsSeen(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as { __cards: string[] }).__cards)
  }

  /** The description of the tool `name` in the last manifest the page sent that lists it. */
  toolDescription(name: string): string | undefined {
    for (const frame of [...this.frames].reverse()) {
      if (frame.direction !== 'sent' || frame.message.type !== 'manifest') continue
      const tools = (frame.message.tools ?? []) as Array<{ name: string; description?: string }>
      const tool = tools.find((t) => t.name === name)
      if (tool) return tool.description
    }
    return undefined
  }

  /** The texts of the chat's messages with `role`, in order. */
  messages(role?: ChatMessage['role']): Promise<string[]> {
    const selector = role
      ? `[data-testid="chat-message"][data-role="${role}"]`
      : '[data-testid="chat-message"]'
    return this.page.locator(selector).allInnerTexts()
  }

  /**
   * Types `text` into the chat and waits for the agent's answer: one more assistant message than
   * before, and the agent no longer busy. Returns the new assistant messages.
   */
  async ask(text: string): Promise<string[]> {
    const before = (await this.messages('assistant')).length
    await this.page.getByTestId('chat-input').fill(text)
    await this.page.getByTestId('chat-send').click()
    return this.waitForAssistant(before)
  }

  /** Waits until there are more than `before` assistant messages and the agent is idle. */
  async waitForAssistant(before: number): Promise<string[]> {
    await this.page.waitForFunction(
      (count) =>
        document.querySelectorAll('[data-testid="chat-message"][data-role="assistant"]').length > count &&
        !document.querySelector('[data-testid="chat-busy"]'),
      before,
      { timeout: 15_000 },
    )
    return (await this.messages('assistant')).slice(before)
  }

  /** The conversation id the page keeps in localStorage. */
  conversationId(): Promise<string> {
    return this.page.evaluate(() => localStorage.getItem('toolmark-demo:conversation') ?? '')
  }

  /** GET /api/conversations/:id with the page's session cookie, as the raw response text. */
  async conversationLog(): Promise<string> {
    const id = await this.conversationId()
    const response = await this.context.request.get(new URL(`/api/conversations/${id}`, this.baseUrl).href)
    if (!response.ok()) throw new Error(`GET /api/conversations/${id}: HTTP ${response.status()}`)
    return response.text()
  }

  /** Names of the challenges the page shows. */
  challengeNames(): Promise<string[]> {
    return this.page
      .locator('[data-testid="challenge-item"]')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-name') ?? ''))
  }

  async close(): Promise<void> {
    await this.context.close()
  }
}
