import { execFileSync } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import Echo from 'laravel-echo'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import Pusher from 'pusher-js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type Demo, startDemo } from '../scripts/serve.ts'

/*
 * The Inertia demo in Debian's Chromium against the real backend: Laravel 8 (Debian) running the
 * guide's code under `php -S` + `queue:work`, the Pusher protocol server on `ws`, and the agent
 * server's embedded planner behind /v1/chat/completions. Nothing of the page or Laravel is mocked.
 */

let demo: Demo
let browser: Browser
const contexts: BrowserContext[] = []

const DEADLINE_MS = 4000
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** Rows of a query on the demo's SQLite file (through PHP's PDO, as Laravel reads it). */
function sql<T = Record<string, unknown>>(query: string): T[] {
  const code = `$d = new PDO('sqlite:' . $argv[1]); echo json_encode($d->query($argv[2])->fetchAll(PDO::FETCH_ASSOC));`
  return JSON.parse(execFileSync('php', ['-r', code, demo.database, query], { encoding: 'utf8' })) as T[]
}

/** Laravel's log: the bridge controller logs every rejected page message with its reason. */
const rejections = (): string[] =>
  existsSync(demo.log)
    ? [...readFileSync(demo.log, 'utf8').matchAll(/"reason":"([a-z_]+)"/g)].map((m) => m[1] ?? '')
    : []

async function until<T>(read: () => T | Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const value = await read()
    if (ok(value)) return value
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

interface Session {
  page: Page
  context: BrowserContext
  user: number
  conversation: number
}

/** Signs `name` in; `watch` sees the page before its first request (to record requests or responses). */
async function signIn(name: string, watch?: (page: Page) => void): Promise<Session> {
  const context = await browser.newContext()
  contexts.push(context)
  const page = await context.newPage()
  page.on('pageerror', (error) => console.error(`[${name}] ${error.message}`))
  watch?.(page)
  await page.goto(`${demo.url}/login/${name}`)
  const props = await page.evaluate(
    () => JSON.parse(document.querySelector('script[data-page="app"]')?.textContent ?? '{}').props.toolmark,
  )
  await until(
    () => pageTools(page),
    (t) => t.includes('challenges.list'),
    'first tools',
  )
  // The agent plans from the manifest Laravel stored: a message sent before it arrives finds no tools.
  const id = await clientId(page)
  await until(
    () => serverTools(id),
    (t) => t.includes('challenges.list'),
    'first manifest stored by Laravel',
  )
  return { page, context, user: props.userId, conversation: props.conversationId }
}

const pageTools = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    (window as unknown as { __toolmark: { tm: { manifest(): { tools: { name: string }[] } } } }).__toolmark.tm
      .manifest()
      .tools.map((t) => t.name),
  )
const clientId = (page: Page): Promise<string> =>
  page.evaluate(() => (window as unknown as { __toolmark: { clientId: string } }).__toolmark.clientId)

/** The tool names of the latest manifest Laravel stored for this page load. */
const serverTools = (id: string): string[] => {
  const row = sql<{ tools: string }>(`select tools from toolmark_pages where client_id = '${id}'`)[0]
  return row ? (JSON.parse(row.tools) as { name: string }[]).map((t) => t.name) : []
}
const serverRev = (id: string) =>
  sql<{ rev: number }>(`select rev from toolmark_pages where client_id = '${id}'`)[0]?.rev

/** Both ends agree on the page's tools. */
async function expectTools(page: Page, tools: string[]): Promise<void> {
  const id = await clientId(page)
  await until(
    () => pageTools(page),
    (t) => t.join() === tools.join(),
    'page tools',
  )
  await until(
    () => serverTools(id),
    (t) => t.join() === tools.join(),
    'manifest stored by Laravel',
  )
}

/** The texts of the user's and the agent's messages (tool lines aside), oldest first. */
const chat = (page: Page) =>
  page
    .getByTestId('chat-log')
    .locator('[data-role="user"] .text, [data-role="assistant"] .text')
    .allTextContents()
async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message').fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}

/** A POST from the page's own session (same origin, its cookies), with or without the CSRF header. */
function post(page: Page, path: string, body: unknown, xsrf = true): Promise<number> {
  return page.evaluate(
    async ({ path, body, xsrf }) => {
      const token = decodeURIComponent(document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]*)/)?.[1] ?? '')
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        Accept: 'application/json',
      }
      if (xsrf) headers['X-XSRF-TOKEN'] = token
      const response = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) })
      return response.status
    },
    { path, body, xsrf },
  )
}

beforeAll(async () => {
  ;[demo, browser] = await Promise.all([
    startDemo({ deadlineMs: DEADLINE_MS }),
    chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    }),
  ])
})

// Close the pages between tests: each keeps a socket and answers calls for its conversation.
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close()
})

afterAll(async () => {
  if (process.env.TOOLMARK_DEMO_LOG && existsSync(demo.log))
    console.log(readFileSync(demo.log, 'utf8').slice(-6000))
  for (const context of contexts) await context.close()
  await browser?.close()
  await demo?.stop()
})

describe('page scopes follow Inertia visits', () => {
  it('swaps on a link visit, a replace: true visit, a same-URL POST-redirect and a client-side push; the manifest after each is the new page’s', async () => {
    const { page } = await signIn('ada')
    const nav = ['navigate']
    await expectTools(page, ['challenges.create', 'challenges.delete', 'challenges.list', ...nav])

    await page.getByRole('link', { name: 'Settings' }).click()
    await expectTools(page, [...nav, 'settings.theme'])

    await page.getByRole('link', { name: 'Challenges' }).click()
    await expectTools(page, ['challenges.create', 'challenges.delete', 'challenges.list', ...nav])
    await page.getByRole('button', { name: 'Settings (replace)' }).click()
    await expectTools(page, [...nav, 'settings.theme'])

    await page.getByRole('link', { name: 'Wizard' }).click()
    await expectTools(page, [...nav, 'wizard.finish'])
    await page.getByRole('button', { name: 'Finish' }).click() // POST /wizard → 302 → GET /wizard
    await expect.poll(() => page.url()).toMatch(/\/wizard$/)
    await expectTools(page, [...nav, 'wizard.summary'])

    await page.getByRole('link', { name: 'Challenges' }).click()
    await expectTools(page, ['challenges.create', 'challenges.delete', 'challenges.list', ...nav])
    await page.getByRole('button', { name: 'Drafts (client-side)' }).click()
    await expectTools(page, ['drafts.list', ...nav])
    expect(new URL(page.url()).pathname).toBe('/drafts')
    // A chat update after the push (the agent's reply over Echo) keeps the pushed page.
    await say(page, 'list the drafts')
    await until(
      () => chat(page),
      (c) => c.length >= 2,
      'agent reply on the pushed page',
    )
    expect(new URL(page.url()).pathname).toBe('/drafts')
    await expectTools(page, ['drafts.list', ...nav])
  })

  it('keeps the scope on partial reloads: no new revision reaches Laravel', async () => {
    const { page } = await signIn('bea')
    const id = await clientId(page)
    await expectTools(page, ['challenges.create', 'challenges.delete', 'challenges.list', 'navigate'])
    const rev = serverRev(id)
    const reloads: string[] = []
    page.on('request', (r) => {
      if (r.headers()['x-inertia-partial-data']) reloads.push(r.headers()['x-inertia-partial-data'] ?? '')
    })
    await page.getByRole('button', { name: 'Refresh stats' }).click()
    await until(
      () => reloads,
      (r) => r.includes('stats'),
      'partial reload',
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(serverRev(id)).toBe(rev)
    expect(await pageTools(page)).toEqual([
      'challenges.create',
      'challenges.delete',
      'challenges.list',
      'navigate',
    ])
  })
})

describe('the agent opens pages by name (the pages of the navigation tool)', () => {
  it('"go to the new challenge page" opens the New challenge form, not the challenges list', async () => {
    const { page } = await signIn('ivy')
    await say(page, 'go to the new challenge page')
    await expect.poll(() => new URL(page.url()).pathname).toBe('/challenges/new')
    await expectTools(page, ['challenge.fill', 'challenge.submit', 'navigate'])
    const replies = await until(
      () => chat(page),
      (c) => c.length === 2,
      'agent reply to the navigation',
    )
    expect(replies[1]).toBe('Opened the new challenge page.')
    expect(sql("select title from challenges where title like '%new challenge%'")).toEqual([])
  })

  it('"open the settings page" lands on /settings, with no error modal', async () => {
    const { page } = await signIn('jon')
    await say(page, 'open the settings page')
    await expect.poll(() => new URL(page.url()).pathname).toBe('/settings')
    await expectTools(page, ['navigate', 'settings.theme'])
    const replies = await until(
      () => chat(page),
      (c) => c.length === 2,
      'agent reply to the navigation',
    )
    expect(replies[1]).toBe('Opened the settings page.')
    // Inertia shows an HTTP error (a 404 for a path built from the words) in a full-screen dialog.
    expect(await page.locator('dialog').count()).toBe(0)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Settings/)
  })
})

describe('the chat: as in the other two demos, updated over Echo', () => {
  it('has their styles, heading, placeholder and suggestions; a suggestion sends itself', async () => {
    const { page } = await signIn('abe')
    const chatPanel = page.getByRole('complementary', { name: 'Chat with the agent' })
    expect(await chatPanel.getByRole('heading').textContent()).toBe('Agent')
    expect(await page.getByLabel('Message').getAttribute('placeholder')).toBe('Ask the agent…')
    // apps/demo's stylesheet: its page background and the chat column of its grid.
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe(
      'rgb(246, 247, 249)',
    )
    expect(await chatPanel.evaluate((el) => getComputedStyle(el).gridArea)).toBe('chat')
    const chips = chatPanel.locator('.suggestions button.chip')
    expect(await chips.allTextContents()).toEqual([
      'List the challenges',
      'Create a challenge called Robotics',
      'Go to settings',
    ])
    await chips.first().click()
    const lines = await until(
      () => chat(page),
      (c) => c.length >= 2,
      'the suggestion and a reply',
    )
    expect(lines[0]).toBe('List the challenges')
    expect(await page.getByTestId('chat-message').first().locator('.who').textContent()).toBe('You')
    expect(await chips.count()).toBe(0)
  })

  it('does not poll: an idle page sends no requests, and the reply arrives over Echo', async () => {
    const requests: string[] = []
    // What the socket brought: the streamed reply's batches and the page calls' parts.
    const frames: Array<{ event: string; data: Record<string, unknown> }> = []
    const { page } = await signIn('ben', (page) => {
      page.on('request', (r) => {
        if (r.resourceType() === 'xhr' || r.resourceType() === 'fetch')
          requests.push(
            `${r.method()} ${new URL(r.url()).pathname} ${r.headers()['x-inertia-partial-data'] ?? ''}`,
          )
      })
      page.on('websocket', (ws) =>
        ws.on('framereceived', ({ payload }) => {
          try {
            const frame = JSON.parse(String(payload)) as { event?: string; data?: string }
            if (frame.event === 'toolmark.delta' || frame.event === 'toolmark.tool')
              frames.push({ event: frame.event, data: JSON.parse(frame.data ?? '{}') })
          } catch {}
        }),
      )
    })
    // Once subscribed, the page reloads its chat prop once (lines stored before it listened).
    await until(
      () => requests.filter((r) => r.endsWith(' chat')),
      (r) => r.length === 1,
      'the catch-up reload',
    )
    const settled = requests.length
    await new Promise((resolve) => setTimeout(resolve, 3000))
    expect(requests.slice(settled)).toEqual([])

    await say(page, 'list the challenges')
    const lines = await until(
      () => chat(page),
      (c) => c.length >= 2,
      'agent reply',
    )
    expect(lines[0]).toBe('list the challenges')
    // The reply and the tool line came over the socket: no chat reload since the catch-up.
    expect(requests.filter((r) => r.endsWith(' chat'))).toHaveLength(1)
    expect(await page.getByTestId('chat-log').locator('[data-role="tool"]').count()).toBeGreaterThan(0)
    // The reply streamed first (`.toolmark.delta`), its batches adding up to the stored line that ended it.
    const deltas = frames.filter((f) => f.event === 'toolmark.delta').map((f) => f.data)
    expect(deltas.length).toBeGreaterThan(0)
    const reply = deltas.filter((d) => d.messageId === deltas.at(-1)?.messageId)
    expect(reply.map((d) => d.delta).join('')).toBe(lines.at(-1))
    expect(await page.getByTestId('chat-streaming').count()).toBe(0)
    // The page call went running → done (`.toolmark.tool`), and its tool line shows it done.
    const parts = frames
      .filter((f) => f.event === 'toolmark.tool')
      .map((f) => f.data.part as Record<string, string>)
    expect(parts.map((p) => `${p.tool} ${p.state}`)).toEqual([
      'challenges.list running',
      'challenges.list done',
    ])
    expect(parts[1]?.callId).toBe(parts[0]?.callId)
    const line = page.getByTestId('chat-log').locator('[data-role="tool"]').last()
    expect(await line.getAttribute('data-state')).toBe('done')
    expect(await line.getByTestId('tool-part').getAttribute('data-tool')).toBe('challenges.list')
  })

  it('loads no missing file: no 404 on sign-in, visits and a reload (the favicon included)', async () => {
    const missing: string[] = []
    const { page } = await signIn('bo', (page) =>
      page.on('response', (r) => {
        if (r.status() === 404) missing.push(r.url())
      }),
    )
    await page.getByRole('link', { name: 'Settings' }).click()
    await expectTools(page, ['navigate', 'settings.theme'])
    await page.reload()
    await until(
      () => pageTools(page),
      (t) => t.includes('settings.theme'),
      'tools after reload',
    )
    expect(missing).toEqual([])
    // What a browser fetches for the tab icon: the icon the page names, and /favicon.ico where none is named.
    const icons = await page.evaluate(async () => {
      const named = document.querySelector<HTMLLinkElement>('link[rel~="icon"]')?.href ?? '/favicon.ico'
      return Promise.all([named, '/favicon.ico'].map(async (url) => (await fetch(url)).status))
    })
    expect(icons.filter((status) => status === 404)).toEqual([])
  })
})

describe('calls over Echo, results by CSRF-checked POST', () => {
  it('answers a call that arrives on the private channel; the POST carries X-XSRF-TOKEN and X-Socket-ID', async () => {
    const { page, conversation } = await signIn('cy')
    const posts: Record<string, string>[] = []
    page.on('request', (r) => {
      if (r.url().includes('/toolmark/bridge/') && r.postDataJSON()?.type === 'result')
        posts.push(r.headers())
    })
    await say(page, 'list the challenges')
    await until(
      () => chat(page),
      (c) => c.length >= 2,
      'agent reply',
    )
    const calls = sql<{ id: string; kind: string; state: string }>(
      `select id, kind, state from toolmark_calls where conversation_id = ${conversation} order by created_at`,
    )
    expect(calls.map((c) => [c.kind, c.state])).toEqual([
      ['describe', 'answered'],
      ['call', 'answered'],
    ])
    for (const call of calls) expect(call.id).toMatch(UUID_V4)
    expect(posts.length).toBe(2)
    for (const headers of posts) {
      expect(headers['x-xsrf-token']?.length).toBeGreaterThan(20)
      expect(headers['x-socket-id']).toMatch(/^\d+\.\d+$/)
    }
  })

  it('a POST without the XSRF header gets 419, and the page reports transport_failed', async () => {
    const { page, conversation } = await signIn('dee')
    const id = await clientId(page)
    const manifest = { protocol: 1, type: 'manifest', clientId: id, rev: 99, tools: [] }
    expect(await post(page, `/toolmark/bridge/${conversation}`, manifest, false)).toBe(419)
    expect(serverRev(id)).not.toBe(99)
    // The bridge's POSTs lose their X-XSRF-TOKEN header on the way: Laravel answers 419, the page reports it.
    const statuses: number[] = []
    page.on('response', (r) => {
      if (r.url().includes('/toolmark/bridge/')) statuses.push(r.status())
    })
    await page.route('**/toolmark/bridge/**', (route) => {
      const { 'x-xsrf-token': _, ...headers } = route.request().headers()
      return route.continue({ headers })
    })
    await page.getByRole('button', { name: 'Drafts (client-side)' }).click()
    await expect.poll(() => page.getByTestId('transport-failed').isVisible()).toBe(true)
    expect(statuses).toContain(419)
    expect(serverTools(id)).not.toContain('drafts.list')
  })
})

describe('deferred confirmation and full reloads', () => {
  it('a card approves; the follow-up turn acknowledges it with no page tools', async () => {
    const { page, conversation } = await signIn('eve')
    await say(page, 'create a challenge titled Robotics')
    await page.getByTestId('confirm-card').waitFor()
    expect(await page.getByTestId('confirm-card').locator('.summary').textContent()).toBe(
      'Create challenge "Robotics"',
    )
    // The agent's turn ends by telling the user a confirmation is waiting.
    await until(
      () => chat(page),
      (c) => c.length === 2,
      'agent says a confirmation is waiting',
    )
    await page.getByTestId('confirm-card').getByRole('button', { name: 'Approve' }).click()
    await until(
      () => chat(page),
      (c) => c.length === 3,
      'follow-up turn',
    )
    const last = sql<{ agent: string }>(
      `select agent from conversation_messages where conversation_id = ${conversation} and role = 'assistant' order by id desc limit 1`,
    )[0]
    expect(JSON.parse(last?.agent ?? '{}').toolCalls).toEqual([])
    expect(sql(`select state from toolmark_confirmations where conversation_id = ${conversation}`)).toEqual([
      { state: 'used' },
    ])
    expect(sql(`select title from challenges where title = 'Robotics'`)).toHaveLength(1)
    await expect.poll(() => page.getByRole('link', { name: 'Robotics' }).count()).toBeGreaterThan(0)
  })

  it('a full reload gets a new clientId, Laravel rebinds the conversation, and the card from before the reload is expired (its decision is asked again)', async () => {
    const { page, conversation } = await signIn('fay')
    const first = await clientId(page)
    await say(page, 'create a challenge titled Chess')
    await page.getByTestId('confirm-card').waitFor()
    const [card] = sql<{ confirm_id: string }>(
      `select confirm_id from toolmark_confirmations where conversation_id = ${conversation}`,
    )
    await page.reload()
    await until(
      () => pageTools(page),
      (t) => t.includes('challenges.list'),
      'tools after reload',
    )
    const second = await clientId(page)
    expect(second).not.toBe(first)
    await until(
      () =>
        sql<{ active_client_id: string }>(
          `select active_client_id from conversations where id = ${conversation}`,
        )[0],
      (row) => row?.active_client_id === second,
      'rebind',
    )
    // The decision comes back as a new card on the new page load (see "a reload while a card waits").
    await page.getByTestId('confirm-card').waitFor()
    // The new page load cannot answer the old page's confirmation (bound to the old clientId).
    const forged = {
      protocol: 1,
      type: 'confirmed',
      clientId: second,
      confirmId: card?.confirm_id,
      result: { status: 'ok' },
    }
    expect(await post(page, `/toolmark/bridge/${conversation}`, forged)).toBe(204)
    await until(rejections, (r) => r.includes('mismatch'), 'mismatch logged')
    expect(
      sql<{ confirm_id: string; state: string }>(
        `select confirm_id, state from toolmark_confirmations where conversation_id = ${conversation}`,
      ).find((r) => r.confirm_id === card?.confirm_id),
    ).toEqual({ confirm_id: card?.confirm_id, state: 'expired' })
    // Calls now go to the new page load.
    await say(page, 'list the challenges')
    await until(
      () =>
        sql<{ client_id: string }>(
          `select client_id from toolmark_calls where conversation_id = ${conversation} and tool = 'challenges.list'`,
        ),
      (rows) => rows.length > 0 && rows.every((r) => r.client_id === second),
      'calls to the new clientId',
    )
  })
})

describe('a reload while a card waits', () => {
  it('asks the card again on the reloaded page with a new confirmId; approving creates the challenge once, as the other two demos do', async () => {
    const { page, conversation } = await signIn('flo')
    await say(page, 'create a challenge titled Origami')
    await page.getByTestId('confirm-card').waitFor()
    const [before] = sql<{ confirm_id: string }>(
      `select confirm_id from toolmark_confirmations where conversation_id = ${conversation}`,
    )
    await page.reload()
    // The pending decision is asked again on the new page load: its card comes back.
    const card = page.getByTestId('confirm-card')
    await card.waitFor()
    expect(await card.count()).toBe(1)
    expect(await card.locator('.summary').textContent()).toBe('Create challenge "Origami"')
    // The old page load's card is expired; the new one (stored once the page's answer lands) has a new confirmId.
    const rows = await until(
      () =>
        sql<{ confirm_id: string; state: string }>(
          `select confirm_id, state from toolmark_confirmations where conversation_id = ${conversation}`,
        ),
      (r) => r.length === 2,
      'the card asked again, stored',
    )
    expect(rows.find((r) => r.state === 'expired')?.confirm_id).toBe(before?.confirm_id)
    expect(rows.find((r) => r.state === 'pending')?.confirm_id).not.toBe(before?.confirm_id)
    // The agent is not told the card expired: it is back.
    const notes = await page.getByTestId('chat-log').locator('[data-role="tool"] .text').allTextContents()
    expect(notes.filter((line) => line.startsWith('confirmation expired'))).toEqual([])

    await card.getByRole('button', { name: 'Approve' }).click()
    await card.waitFor({ state: 'detached' })
    await until(
      () => sql("select title from challenges where title = 'Origami'"),
      (r) => r.length === 1,
      'the challenge created',
    )
    expect(
      sql<{ state: string }>(
        `select state from toolmark_confirmations where conversation_id = ${conversation}`,
      )
        .map((r) => r.state)
        .sort(),
    ).toEqual(['expired', 'used'])
    // A second reload asks nothing: the decision is made.
    await page.reload()
    await page.getByTestId('chat-log').waitFor()
    expect(await page.getByTestId('confirm-card').count()).toBe(0)
    expect(sql("select title from challenges where title = 'Origami'")).toHaveLength(1)
  })

  it('another user cannot expire the cards of a conversation that is not theirs (403)', async () => {
    const owner = await signIn('gil')
    await say(owner.page, 'create a challenge titled Pottery')
    await owner.page.getByTestId('confirm-card').waitFor()
    const other = await signIn('hex')
    const body = { clientId: await clientId(owner.page) }
    expect(await post(other.page, `/toolmark/gone/${owner.conversation}`, body)).toBe(403)
    expect(
      sql(`select state from toolmark_confirmations where conversation_id = ${owner.conversation}`),
    ).toEqual([{ state: 'pending' }])
  })
})

describe('the New challenge form: Inertia useForm as challenge.fill / challenge.submit', () => {
  const approve = async (page: Page) => {
    const card = page.getByTestId('confirm-card')
    await card.waitFor()
    const shown = {
      summary: await page.getByTestId('confirm-card').locator('.summary').textContent(),
      changes: await card
        .locator('.changes > div')
        .evaluateAll((rows) =>
          rows.map((row) => [
            row.querySelector('dt')?.textContent,
            row.querySelector('dd')?.textContent?.trim(),
          ]),
        ),
    }
    await card.getByRole('button', { name: 'Approve' }).click()
    await card.waitFor({ state: 'detached' })
    return shown
  }

  it('the agent fills the form, the card shows the values, and the approved submit creates the challenge', async () => {
    const { page, conversation } = await signIn('gus')
    await page.getByRole('link', { name: 'New challenge' }).click()
    await expectTools(page, ['challenge.fill', 'challenge.submit', 'navigate'])

    await say(page, 'fill the new challenge form with title "Kite building"')
    await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('Kite building')
    await until(
      () => chat(page),
      (c) => c.length === 2,
      'agent reply to the fill',
    )
    expect(sql("select title from challenges where title = 'Kite building'")).toEqual([])

    await say(page, 'submit it')
    // The card shows what the submit sends: the diff since the values were last confirmed.
    expect(await approve(page)).toEqual({
      summary: 'Submit "New challenge"',
      changes: [['title', 'Kite building']],
    })
    await expect.poll(() => new URL(page.url()).pathname).toBe('/challenges')
    await expectTools(page, ['challenges.create', 'challenges.delete', 'challenges.list', 'navigate'])
    expect(sql("select title from challenges where title = 'Kite building'")).toHaveLength(1)
    expect(sql(`select state from toolmark_confirmations where conversation_id = ${conversation}`)).toEqual([
      { state: 'used' },
    ])
    const replies = await until(
      () => chat(page),
      (c) => c.length === 5,
      'follow-up turn',
    )
    expect(replies.at(-1)).toBe('Created a challenge from the New challenge form (title "Kite building").')
  })

  it("Laravel's validation error comes back at the field: the form shows it and nothing is created twice", async () => {
    const { page } = await signIn('hal')
    await page.getByRole('link', { name: 'New challenge' }).click()
    await expectTools(page, ['challenge.fill', 'challenge.submit', 'navigate'])
    await say(page, 'fill the new challenge form with title "Kite building"')
    await expect.poll(() => page.getByLabel('Title').inputValue()).toBe('Kite building')
    await say(page, 'submit it')
    await approve(page)
    // The 422 keeps the page: the error is at `title`, the tools stay, one row only.
    await expect
      .poll(() => page.getByRole('alert').allTextContents())
      .toEqual(['The title has already been taken.'])
    expect(new URL(page.url()).pathname).toBe('/challenges/new')
    expect(await pageTools(page)).toEqual(['challenge.fill', 'challenge.submit', 'navigate'])
    expect(sql("select title from challenges where title = 'Kite building'")).toHaveLength(1)
    // The follow-up turn tells the user why, from the outcome Laravel put in the history.
    const replies = await until(
      () => chat(page),
      (c) => c.length === 5,
      'follow-up turn',
    )
    expect(replies.at(-1)).toBe(
      'Nothing was saved. The page did not accept the title: The title has already been taken.',
    )
  })
})

describe('channel security', () => {
  it('ignores a whisper carrying a valid call; another user cannot subscribe to the channel (403)', async () => {
    const alice = await signIn('gus')
    const bob = await signIn('hal')
    const channel = `private-toolmark.${alice.user}.${alice.conversation}`
    const target = await clientId(alice.page)
    await alice.page.evaluate(() => {
      const w = window as unknown as {
        __calls: number
        __toolmark: { tm: { events: { on(e: string, f: () => void): void } } }
      }
      w.__calls = 0
      w.__toolmark.tm.events.on('call', () => void w.__calls++)
    })

    // Another client of the same user (its own session cookies) joins the channel and whispers a call.
    const cookies = (await alice.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
    const xsrf = decodeURIComponent(
      (await alice.context.cookies()).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '',
    )
    const intruder = new Echo({
      broadcaster: 'reverb',
      key: demo.pusher.key,
      wsHost: '127.0.0.1',
      wsPort: demo.pusher.port,
      wssPort: demo.pusher.port,
      forceTLS: false,
      enabledTransports: ['ws'],
      // Laravel's /broadcasting/auth with the user's own session cookie (pusher-js in Node cannot send cookies).
      authorizer: (ch: { name: string }) => ({
        // biome-ignore lint/suspicious/noExplicitAny: pusher-js types the callback loosely
        authorize: (socketId: string, callback: (error: Error | null, data: any) => void) => {
          fetch(`${demo.url}/broadcasting/auth`, {
            method: 'POST',
            headers: {
              Cookie: cookies,
              'X-XSRF-TOKEN': xsrf,
              'Content-Type': 'application/x-www-form-urlencoded',
              Accept: 'application/json',
            },
            body: new URLSearchParams({ socket_id: socketId, channel_name: ch.name }).toString(),
          })
            .then(async (r) =>
              r.ok ? callback(null, await r.json()) : callback(new Error(`HTTP ${r.status}`), null),
            )
            .catch((error: Error) => callback(error, null))
        },
      }),
      Pusher,
    })
    try {
      const joined = intruder.private(`toolmark.${alice.user}.${alice.conversation}`)
      await until(
        () => demo.pusher.subscribers(channel).length,
        (n) => n === 2,
        'second subscriber',
      )
      const call = {
        protocol: 1,
        type: 'call',
        clientId: target,
        id: crypto.randomUUID(),
        tool: 'challenges.list',
        input: {},
      }
      joined.whisper('toolmark.message', { message: call })
      joined.whisper('.toolmark.message', call)
      await until(
        () => demo.pusher.clientEvents.filter((e) => e.channel === channel).length,
        (n) => n >= 2,
        'whispers',
      )
      expect(
        demo.pusher.clientEvents.filter((e) => e.channel === channel).every((e) => e.relayedTo === 1),
      ).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await alice.page.evaluate(() => (window as unknown as { __calls: number }).__calls)).toBe(0)
    } finally {
      intruder.disconnect()
    }

    // Bob's session asks Laravel to authorize Alice's channel: refused.
    const status = await bob.page.evaluate(async (name) => {
      const token = decodeURIComponent(document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]*)/)?.[1] ?? '')
      const response = await fetch('/broadcasting/auth', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-XSRF-TOKEN': token },
        body: new URLSearchParams({ socket_id: '123.456', channel_name: name }).toString(),
      })
      return response.status
    }, channel)
    expect(status).toBe(403)
    // And Bob cannot post into Alice's conversation (the route's policy).
    expect(
      await post(bob.page, `/toolmark/bridge/${alice.conversation}`, {
        protocol: 1,
        type: 'changed',
        clientId: 'x',
        rev: 1,
      }),
    ).toBe(403)
  })

  it('the bridge controller enforces the security MUSTs: unknown, duplicate, mismatched and late results are rejected', async () => {
    const { page, conversation, user } = await signIn('ivy')
    const id = await clientId(page)
    const result = (callId: string, from = id) => ({
      protocol: 1,
      type: 'result',
      clientId: from,
      id: callId,
      result: { status: 'ok', data: 'forged' },
    })
    const seen = rejections().length

    // Unknown id (MUST 4).
    expect(await post(page, `/toolmark/bridge/${conversation}`, result(crypto.randomUUID()))).toBe(204)
    // A real call, answered by the page: its duplicate is rejected (MUST 4).
    await say(page, 'list the challenges')
    const call = await until(
      () =>
        sql<{ id: string; state: string }>(
          `select id, state from toolmark_calls where conversation_id = ${conversation} and kind = 'call'`,
        )[0],
      (row) => row?.state === 'answered',
      'answered call',
    )
    expect(await post(page, `/toolmark/bridge/${conversation}`, result(call?.id ?? ''))).toBe(204)
    // A pending call bound to this page load, answered from another clientId (MUST 3) and after its deadline (MUST 5).
    const pending = crypto.randomUUID()
    const late = crypto.randomUUID()
    const past = new Date(Date.now() - 1000).toISOString().replace('T', ' ').slice(0, 23)
    const future = new Date(Date.now() + 60_000).toISOString().replace('T', ' ').slice(0, 23)
    for (const [callId, deadline] of [
      [pending, future],
      [late, past],
    ]) {
      sql(
        `insert into toolmark_calls (id, user_id, conversation_id, client_id, kind, tool, tool_call_id, deadline_at, state, created_at, updated_at) values ('${callId}', ${user}, ${conversation}, '${id}', 'call', 'challenges.list', 'x', '${deadline}', 'pending', '${past}', '${past}') returning id`,
      )
    }
    expect(await post(page, `/toolmark/bridge/${conversation}`, result(pending, crypto.randomUUID()))).toBe(
      204,
    )
    expect(await post(page, `/toolmark/bridge/${conversation}`, result(late))).toBe(204)
    // Malformed messages are rejected too.
    expect(await post(page, `/toolmark/bridge/${conversation}`, { protocol: 2, type: 'result' })).toBe(204)

    await until(
      () => rejections().slice(seen),
      (r) => r.length >= 5,
      'rejections',
    )
    expect(rejections().slice(seen).sort()).toEqual([
      'duplicate',
      'invalid',
      'late',
      'mismatch',
      'unknown_id',
    ])
    // The binding the forged result named is untouched.
    expect(sql(`select state from toolmark_calls where id = '${pending}'`)).toEqual([{ state: 'pending' }])
  })
})

describe('deadlines', () => {
  it('a call whose result never arrives times out: the deadline job marks it and the agent is told', async () => {
    const { page, conversation } = await signIn('max')
    // The page answers, but its result POSTs never reach Laravel (as if the network dropped them).
    await page.route('**/toolmark/bridge/**', (route) =>
      route.request().postDataJSON()?.type === 'result' ? route.abort() : route.continue(),
    )
    await say(page, 'list the challenges')
    const call = await until(
      () =>
        sql<{ id: string; state: string }>(
          `select id, state from toolmark_calls where conversation_id = ${conversation}`,
        )[0],
      (row) => row?.state === 'timed_out',
      'timed out',
    )
    expect(call?.id).toMatch(UUID_V4)
    await until(
      () => chat(page),
      (c) => c.length >= 2,
      'the agent tells the user',
    )
    expect((await chat(page)).at(-1)).toMatch(/time|could not/i)
  })
})

describe('the stand-ins for Composer-only packages (laravel/app/Stand, labelled STAND-IN)', () => {
  async function session(name: string) {
    const { context, page } = await signIn(name)
    const cookies = await context.cookies()
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ')
    const xsrf = decodeURIComponent(cookies.find((c) => c.name === 'XSRF-TOKEN')?.value ?? '')
    const version = await page.evaluate(
      () =>
        JSON.parse(document.querySelector('script[data-page="app"]')?.textContent ?? '{}').version as string,
    )
    return { cookie, xsrf, version }
  }

  it('Inertia adapter: <script data-page> HTML, JSON for X-Inertia, partial reloads, 409 on a stale asset version, 303 after DELETE', async () => {
    const { cookie, xsrf, version } = await session('kim')
    const get = (headers: Record<string, string> = {}) =>
      fetch(`${demo.url}/challenges`, { headers: { Cookie: cookie, ...headers }, redirect: 'manual' })

    const html = await get()
    expect(html.headers.get('content-type')).toContain('text/html')
    expect(await html.text()).toContain(
      '<div id="app"></div>\n<script data-page="app" type="application/json">{"component":"Challenges/Index"',
    )

    const json = await get({ 'X-Inertia': 'true', 'X-Inertia-Version': version })
    expect(json.headers.get('x-inertia')).toBe('true')
    expect(json.headers.get('vary')).toContain('X-Inertia')
    const page = (await json.json()) as {
      component: string
      props: Record<string, unknown>
      url: string
      version: string
    }
    expect(page).toMatchObject({ component: 'Challenges/Index', url: '/challenges', version })
    expect(Object.keys(page.props)).toEqual(
      expect.arrayContaining(['challenges', 'stats', 'toolmark', 'chat', 'errors']),
    )

    const partial = await get({
      'X-Inertia': 'true',
      'X-Inertia-Version': version,
      'X-Inertia-Partial-Component': 'Challenges/Index',
      'X-Inertia-Partial-Data': 'stats',
    })
    expect(Object.keys(((await partial.json()) as typeof page).props).sort()).toEqual(['errors', 'stats'])

    const stale = await get({ 'X-Inertia': 'true', 'X-Inertia-Version': 'old' })
    expect(stale.status).toBe(409)
    expect(stale.headers.get('x-inertia-location')).toBe(`${demo.url}/challenges`)

    sql(
      `insert into challenges (title, goal, created_at, updated_at) values ('Doomed', '', '2026-01-01', '2026-01-01') returning id`,
    )
    const [doomed] = sql<{ id: number }>(`select id from challenges where title = 'Doomed'`)
    const removed = await fetch(`${demo.url}/challenges/${doomed?.id}`, {
      method: 'DELETE',
      headers: { Cookie: cookie, 'X-Inertia': 'true', 'X-Inertia-Version': version, 'X-XSRF-TOKEN': xsrf },
      redirect: 'manual',
    })
    expect(removed.status).toBe(303)
    expect(removed.headers.get('location')).toBe(`${demo.url}/challenges`)
  })

  it('Pusher broadcaster: /broadcasting/auth answers key:HMAC-SHA256(secret, "socket_id:channel") for the owner only', async () => {
    const { cookie, xsrf } = await session('lou')
    const [me] = sql<{ id: number; conversation: number }>(
      `select users.id, conversations.id as conversation from users join conversations on conversations.user_id = users.id where users.name = 'lou'`,
    )
    const auth = (channel: string, socketId = '1234.5678') =>
      fetch(`${demo.url}/broadcasting/auth`, {
        method: 'POST',
        headers: {
          Cookie: cookie,
          'X-XSRF-TOKEN': xsrf,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ socket_id: socketId, channel_name: channel }).toString(),
      })
    const channel = `private-toolmark.${me?.id}.${me?.conversation}`
    const ok = await auth(channel)
    expect(ok.status).toBe(200)
    const signature = createHmac('sha256', demo.pusher.secret).update(`1234.5678:${channel}`).digest('hex')
    expect(await ok.json()).toEqual({ auth: `${demo.pusher.key}:${signature}` })
    expect((await auth(`private-toolmark.${me?.id}.999999`)).status).toBe(403) // no such conversation
    expect((await auth(channel, '1234.5678:private-other')).status).toBe(403) // a socket id that would forge a signature
  })
})
