import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test, vi } from 'vitest'
import { DemoPage, type Frame, recordHttpBridge } from '../../demo/e2e/harness.ts'
import { type RunningApp, startApp } from './app.ts'
import {
  APP_TOOLS,
  CHALLENGE_TOOLS,
  CHALLENGES_TOOLS,
  clientIds,
  lastTools,
  manifests,
  SETTINGS_TOOLS,
} from './tools.ts'

let browser: Browser
let app: RunningApp

beforeAll(async () => {
  ;[browser, app] = await Promise.all([chromium.connect(inject('browserWSEndpoint')), startApp()])
})
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/i

test('the server-rendered HTML has the page but no registration side effects', async () => {
  const response = await fetch(new URL('/challenges', app.url))
  const html = await response.text()
  expect(response.status).toBe(200)
  expect(html).toContain('Chess Openings')
  expect(html).not.toMatch(UUID)
  expect(response.headers.get('set-cookie')).toBeNull()
  // Without JavaScript the page still renders, and nothing talks to the agent or the bridge.
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  const agentRequests: string[] = []
  page.on('request', (request) => {
    if (/^\/(api|toolmark)\//.test(new URL(request.url()).pathname)) agentRequests.push(request.url())
  })
  page.on('websocket', (socket) => agentRequests.push(socket.url()))
  await page.goto(new URL('/challenges', app.url).href)
  await page.waitForLoadState('networkidle')
  expect(await page.locator('[data-testid="challenge-item"]').count()).toBe(3)
  expect(agentRequests).toEqual([])
  await context.close()
})

test('hydration registers the layout and page tools: the manifests only add tools, until all are listed', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const all = [...APP_TOOLS, ...CHALLENGES_TOOLS].sort()
  await vi.waitFor(() => expect(manifests(demo.frames).at(-1)?.names).toEqual(all))
  // The bridge's attach manifest may come before the first registrations (the protocol allows an
  // empty one). Layout and page usually register in one commit, but React may yield between the
  // hydration of the layout and of the page under load: then a second manifest adds the rest. No
  // manifest of the hydration ever drops a tool, or lists one that is not the page's.
  const sent = manifests(demo.frames)
  const first = sent.findIndex((m) => m.names.length > 0)
  expect(sent.slice(0, first).every((m) => m.names.length === 0)).toBe(true)
  expect(first).toBeLessThanOrEqual(1)
  expect(sent.length - first).toBeLessThanOrEqual(2)
  for (const [i, m] of sent.slice(first).entries()) {
    expect(m.names.every((n) => all.includes(n))).toBe(true)
    if (i > 0) expect(m.names).toEqual(expect.arrayContaining(sent[first + i - 1]?.names ?? []))
  }
  await demo.close()
})

test('the agent navigates: page tools swap with the same clientId; the old page tools are refused stale for the old rev', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const before = manifests(demo.frames).at(-1)!
  const from = demo.frames.length
  const reply = await demo.ask('Go to settings')
  expect(reply.join('\n')).toMatch(/settings/i)
  await demo.page.waitForURL('**/settings')
  await demo.waitForTool('settings.updateCard', from)
  const call = demo.frames
    .slice(from)
    .find((f) => f.direction === 'received' && f.message.type === 'call')!.message
  expect(call.tool).toBe('app.navigate')
  const result = demo.frames.find(
    (f) => f.direction === 'sent' && f.message.type === 'result' && f.message.id === call.id,
  )!.message.result
  expect(result).toEqual({ status: 'ok', data: { page: 'settings', href: '/settings' } })
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...SETTINGS_TOOLS].sort())
  expect(clientIds(demo.frames)).toEqual([before.clientId])

  // A call for the old page's tool carrying the old rev: the page's registry answers stale.
  const answer = await demo.page.evaluate(
    ([rev]) => {
      const tm = (window as unknown as Record<symbol, { call: Function }>)[Symbol.for('@toolmark/next.tab')]!
      return tm.call('challenges.search', { query: 'chess' }, { caller: 'inapp', rev })
    },
    [before.rev] as const,
  )
  expect(answer).toMatchObject({ status: 'refused', code: 'stale' })
  await demo.close()
})

test("over the bridge: a call for the left page's tool with the old rev is answered refused stale", async () => {
  const context = await browser.newContext()
  const page = await context.newPage()
  const sent: Array<Record<string, unknown>> = []
  let stream = ''
  await recordHttpBridge(context, page, {
    onFrame: (direction, payload) => {
      if (direction === 'sent') sent.push(JSON.parse(payload) as Record<string, unknown>)
    },
    onReady: (id) => {
      stream = id
    },
  })
  // A test hand on the page's real bridge event stream, to inject one agent→page message: the page's
  // EventSource objects (the chat's and the bridge's), kept as they are made; the transport is untouched.
  await context.addInitScript(() => {
    const Native = window.EventSource
    const made: EventSource[] = []
    ;(window as unknown as { __eventSources: EventSource[] }).__eventSources = made
    window.EventSource = class extends Native {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init)
        made.push(this)
      }
    }
  })
  const manifestWith = (tool: string) =>
    vi.waitFor(
      () => {
        const found = sent.findLast(
          (m) => m.type === 'manifest' && (m.tools as Array<{ name: string }>).some((t) => t.name === tool),
        )
        if (!found) throw new Error(`no manifest with ${tool} yet`)
        return found
      },
      { timeout: 10_000 },
    )
  await page.goto(new URL('/challenges', app.url).href)
  const old = await manifestWith('challenges.search')
  await page.getByTestId('nav-settings').click()
  const current = await manifestWith('settings.updateCard')
  const id = crypto.randomUUID()
  const call = JSON.stringify({
    protocol: 1,
    type: 'call',
    clientId: old.clientId,
    id,
    rev: old.rev,
    tool: 'challenges.search',
    input: { query: 'chess' },
  })
  // An event id past any the server sent on this page connection, so the transport takes it as new.
  await page.evaluate(
    ([data, lastEventId]) => {
      const source = (window as unknown as { __eventSources: EventSource[] }).__eventSources.findLast((s) =>
        s.url.includes('/toolmark/events'),
      )!
      source.dispatchEvent(new MessageEvent('message', { data, lastEventId }))
    },
    [call, `${stream}:${Number.MAX_SAFE_INTEGER}`] as const,
  )
  const answer = await vi.waitFor(
    () => {
      const found = sent.find((m) => m.type === 'result' && m.id === id)
      if (!found) throw new Error('no result yet')
      return found
    },
    { timeout: 5000 },
  )
  expect(current.clientId).toBe(old.clientId)
  expect(answer.result).toEqual({
    status: 'refused',
    code: 'stale',
    message: 'The tool list changed; use the latest manifest',
    rev: current.rev,
  })
  await context.close()
})

test('back and forward: the shown segment gets its tools back, the left one loses them', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const clientId = clientIds(demo.frames)[0]
  let from = demo.frames.length
  await demo.page.getByTestId('nav-settings').click()
  await demo.waitForTool('settings.updateCard', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...SETTINGS_TOOLS].sort())
  from = demo.frames.length
  await demo.page.goBack()
  await demo.waitForTool('challenges.search', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...CHALLENGES_TOOLS].sort())
  from = demo.frames.length
  await demo.page.goForward()
  await demo.waitForTool('settings.updateCard', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...SETTINGS_TOOLS].sort())
  expect(clientIds(demo.frames)).toEqual([clientId])
  await demo.close()
})

test('replace swaps the tools without a history entry; refresh keeps the scopes, tools and rev', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const length = await demo.page.evaluate(() => history.length)
  let from = demo.frames.length
  await demo.page.evaluate(() =>
    (window as unknown as { next: { router: { replace(href: string): void } } }).next.router.replace(
      '/settings',
    ),
  )
  await demo.waitForTool('settings.updateCard', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...SETTINGS_TOOLS].sort())
  expect(await demo.page.evaluate(() => history.length)).toBe(length)
  const rev = manifests(demo.frames).at(-1)!.rev
  from = demo.frames.length
  const refreshed = demo.page.waitForResponse((response) => response.request().headers().rsc === '1')
  await demo.page.evaluate(() =>
    (window as unknown as { next: { router: { refresh(): void } } }).next.router.refresh(),
  )
  await refreshed
  // The refresh re-renders the server components; the page still answers, with the same tools and rev.
  expect((await demo.ask('Where am I?')).join('\n')).toContain('/settings')
  expect(manifests(demo.frames, from)).toEqual([])
  const tm = await demo.page.evaluate(
    () => (window as unknown as Record<symbol, { rev: number }>)[Symbol.for('@toolmark/next.tab')]!.rev,
  )
  expect(tm).toBe(rev)
  expect(clientIds(demo.frames)).toHaveLength(1)
  await demo.close()
})

test('a dynamic route: /challenges/[id] tools read the current params, across a param change', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  let from = demo.frames.length
  await demo.page.locator('[data-testid="challenge-link"]', { hasText: 'Chess Openings' }).click()
  await demo.waitForTool('challenge.details', from)
  expect(lastTools(demo.frames)).toEqual([...APP_TOOLS, ...CHALLENGE_TOOLS].sort())
  expect((await demo.ask('Show the challenge details')).join('\n')).toContain('Chess Openings')
  from = demo.frames.length
  await demo.page.getByTestId('challenge-next').click()
  await demo.page.waitForURL('**/challenges/c-marathon')
  await demo.waitForTool('challenge.details', from)
  expect((await demo.ask('Show the challenge details')).join('\n')).toContain('Marathon Training')
  // Every manifest lists each tool once: the suspended segment registered when it committed, once.
  for (const m of manifests(demo.frames)) expect(new Set(m.names).size).toBe(m.names.length)
  expect(clientIds(demo.frames)).toHaveLength(1)
  await demo.close()
})

test('a deferred confirmation card: approving deletes, and the agent acknowledges it', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  await demo.ask('Delete the challenge Marathon Training')
  const card = demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.delete"]')
  await card.waitFor()
  const before = (await demo.messages('assistant')).length
  await card.getByTestId('confirm-delete').click()
  const ack = await demo.waitForAssistant(before)
  expect(ack.join('\n')).toMatch(/Marathon Training/)
  expect(await demo.challengeNames()).not.toContain('Marathon Training')
  await demo.close()
})

/** The confirmIds of the `needs_confirmation` results a page load sent, in order. */
const confirmIdsOf = (frames: readonly Frame[], clientId: string) =>
  frames
    .filter(
      (f) =>
        f.direction === 'sent' &&
        f.message.type === 'result' &&
        f.message.clientId === clientId &&
        (f.message.result as { status?: string }).status === 'needs_confirmation',
    )
    .map((f) => (f.message.result as { confirmId: string }).confirmId)

test('a full reload: new clientId and manifest, the conversation is rebound, a pending card is asked again there', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const first = clientIds(demo.frames)[0]!
  await demo.ask('Create a challenge called Robotics')
  await demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]').waitFor()
  const [oldConfirmId] = confirmIdsOf(demo.frames, first)
  expect(oldConfirmId).toMatch(UUID)
  const second = await demo.reload()
  expect(second).not.toBe(first)
  expect(manifests(demo.frames).filter((m) => m.clientId === second)[0]?.names).toContain('challenges.search')
  // The user's pending decision outlives the page load: the new page load asks it again, once, with a
  // new confirmId.
  const card = demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]')
  await card.waitFor({ timeout: 10_000 })
  expect(await demo.page.getByTestId('confirm-card').count()).toBe(1)
  await vi.waitFor(() => expect(confirmIdsOf(demo.frames, second)).toHaveLength(1))
  expect(confirmIdsOf(demo.frames, second)[0]).not.toBe(oldConfirmId)
  // The old confirmId is expired: approving it (as the gone page load would) is refused as expired.
  await demo.page.evaluate(
    async ([confirmId, clientId]) => {
      const conversation = localStorage.getItem('toolmark-demo:conversation') ?? ''
      const events = new EventSource(`/toolmark/events?conversation=${encodeURIComponent(conversation)}`)
      const stream = await new Promise<string>((resolve) =>
        events.addEventListener('ready', (e) => resolve((JSON.parse(e.data) as { stream: string }).stream)),
      )
      await fetch('/toolmark/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-toolmark-stream': stream },
        body: JSON.stringify({
          protocol: 1,
          type: 'confirmed',
          clientId,
          confirmId,
          result: { status: 'ok', data: { name: 'Robotics' } },
        }),
      })
      events.close()
    },
    [oldConfirmId!, first] as const,
  )
  await vi.waitFor(() =>
    expect(app.output.join('')).toMatch(
      new RegExp(`rejected confirmed \\(expired_confirm\\)[^\\n]*id="?${oldConfirmId}`),
    ),
  )
  expect((await demo.messages('tool')).join('\n')).not.toMatch(/confirmation expired/)
  const before = (await demo.messages('assistant')).length
  await card.getByTestId('confirm-approve').click()
  await demo.waitForAssistant(before)
  expect((await demo.challengeNames()).filter((name) => name === 'Robotics')).toHaveLength(1)
  const from = demo.frames.length
  expect((await demo.ask('Search for marathon')).join('\n')).toContain('Marathon Training')
  const calls = demo.frames.slice(from).filter((f) => f.direction === 'received' && f.message.type === 'call')
  expect(calls.map((f) => f.message.clientId)).toEqual([second])
  await demo.close()
})

test('on /settings after a reload, a search the page cannot do names the challenges page as the one that can', async () => {
  const demo = await DemoPage.open(browser, app.url, '/settings')
  await demo.reload()
  expect((await demo.ask('Search for chess')).join('\n')).toContain(
    'I cannot search for chess on this page; the challenges page can. Say "go to challenges", then ask me again.',
  )
  await demo.close()
})
