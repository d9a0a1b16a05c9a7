import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { challengesTools, demoState } from '../../../../packages/offline-agent/src/__tests__/demo-tools.ts'
import {
  startPostgres,
  startProcess,
  startRedis,
  type TestPostgres,
  type TestProcess,
  type TestRedis,
} from '../../../../tests/support/servers.ts'
import { Browser, FakePage, type HttpLink, readEvents } from './helpers.ts'

/*
 * Shared mode with real parts: three agent-server processes (the same code as one instance, switched by
 * DATABASE_URL and REDIS_URL), one Redis, one PostgreSQL, each started here on free loopback ports.
 */

const APP = fileURLToPath(new URL('../..', import.meta.url))
let redis: TestRedis
let postgres: TestPostgres
let db: pg.Pool
const instances: TestProcess[] = []
let databases = 0

beforeAll(async () => {
  ;[redis, postgres] = await Promise.all([startRedis(), startPostgres()])
  db = new pg.Pool({ connectionString: postgres.url, max: 2 })
  db.on('error', () => {})
}, 60_000)
afterAll(async () => {
  await Promise.all(instances.map((i) => i.stop('SIGKILL')))
  await db?.end()
  await Promise.all([redis?.stop(), postgres?.destroy()])
}, 60_000)

/** A fresh database and `n` instances sharing it and Redis (each test its own key prefix is not needed: ids are random). */
async function cluster(n: number, env: Record<string, string> = {}): Promise<TestProcess[]> {
  const name = `shared${++databases}`
  await db.query(`CREATE DATABASE ${name}`)
  const started: TestProcess[] = []
  // One after the other: the first applies the migrations, the others find them applied.
  for (let i = 0; i < n; i++) {
    const instance = await startProcess({
      cwd: APP,
      args: ['--conditions=@toolmark/source', '--import', 'tsx', 'src/main.ts'],
      env: {
        DATABASE_URL: postgres.urlOf(name),
        REDIS_URL: redis.url,
        PROVIDER: 'embedded',
        STATIC_DIR: '/nonexistent',
        CALL_DEADLINE_MS: '8000',
        ...env,
      },
      ready: /Toolmark agent server on/,
      timeoutMs: 60_000,
    })
    instances.push(instance)
    started.push(instance)
  }
  return started
}

/** A browser of the same user on another instance (the session cookie is valid on every instance). */
function sameUser(browser: Browser, url: string): Browser {
  const other = new Browser(url)
  other.cookie = browser.cookie
  return other
}

/** The chat events of a conversation, read from one instance's event stream. */
async function chatStream(browser: Browser, conversation: string) {
  const abort = new AbortController()
  const response = await browser.fetch(`/api/conversations/${conversation}/events`, { signal: abort.signal })
  if (!response.body) throw new Error('no event stream')
  // Every chat message the stream carried, as `role: text`.
  const texts: string[] = []
  const reading = (async () => {
    try {
      for await (const event of readEvents(response.body!)) {
        const data = JSON.parse(event.data) as { type: string; message?: { role: string; text: string } }
        if (data.type === 'message' && data.message) texts.push(`${data.message.role}: ${data.message.text}`)
      }
    } catch {}
  })()
  return {
    texts,
    async next(match: (text: string) => boolean, timeoutMs = 20_000): Promise<string> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = texts.find(match)
        if (found !== undefined) return found
        if (Date.now() > deadline) throw new Error(`no such chat message; got ${JSON.stringify(texts)}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
    async close() {
      abort.abort()
      await reading
    },
  }
}

/** Resolves once PostgreSQL has the page load's manifest (its POST may have been handed between instances). */
async function manifestStored(clientId: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgres.urlOf(database) })
  await client.connect()
  try {
    for (let i = 0; i < 400; i++) {
      const { rowCount } = await client.query('SELECT 1 FROM toolmark_manifests WHERE client_id = $1', [
        clientId,
      ])
      if (rowCount) return
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error('the manifest never reached the store')
  } finally {
    await client.end()
  }
}

/**
 * A new user's conversation whose page (the demo's tools, HTTP transport) has its event stream on `a` and POSTs
 * every message to `c` (no sticky sessions); resolves once its manifest is in the store.
 */
async function pageOnAPostingToC(a: TestProcess, c: TestProcess) {
  const onA = new Browser(a.url)
  const conversation = await onA.createConversation()
  const state = demoState()
  const page = await FakePage.open(a.url, onA, conversation, challengesTools(state), {
    transport: 'http',
    manifest: false,
  })
  ;(page.link as HttpLink).postTo = c.url
  await page.sendManifest()
  await manifestStored(page.clientId, `shared${databases}`)
  return { onA, conversation, state, page }
}

describe('shared mode: three instances, one Redis, one PostgreSQL', () => {
  it('runs a tool once on a page held by A, for a chat posted to B and a card approved through C', async () => {
    const [a, b, c] = await cluster(3)
    const { onA, conversation, state, page } = await pageOnAPostingToC(a!, c!)

    const onB = sameUser(onA, b!.url)
    const chat = await chatStream(onB, conversation)
    expect((await onB.say(conversation, 'create a challenge called Robotics')).status).toBe(202)
    expect(await chat.next((t) => t.startsWith('assistant: A confirmation is waiting'))).toBe(
      'assistant: A confirmation is waiting in the page: Create challenge "Robotics". Approve or reject it there.',
    )
    expect(page.calls).toEqual([{ tool: 'challenges.create', input: { name: 'Robotics' }, rev: 1 }])
    expect(state.challenges.map((x) => x.name)).not.toContain('Robotics')

    await page.approve([...page.pending.keys()][0]!)
    // The follow-up turn runs where the confirmation arrived; its answer reaches the stream on B.
    expect(await chat.next((t) => t.startsWith('assistant: Created'))).toBe('assistant: Created "Robotics".')
    expect(state.challenges.filter((x) => x.name === 'Robotics')).toHaveLength(1)
    expect(page.calls.filter((x) => x.tool === 'challenges.create')).toHaveLength(1)
    // Every instance answers the same conversation from the shared store.
    for (const url of [a!.url, b!.url, c!.url]) {
      const texts = (await sameUser(onA, url).messages(conversation)).map((m) => m.text)
      expect(texts).toContain('Created "Robotics".')
    }
    await chat.close()
    await page.close()
  }, 120_000)

  it('answers a call in flight with the timeout when the instance holding the page is killed (-9); the page moves on', async () => {
    const [a, b, c] = await cluster(3, { CALL_DEADLINE_MS: '4000' })
    const onA = new Browser(a!.url)
    const conversation = await onA.createConversation()
    const state = demoState()
    const tools = challengesTools(state)
    const page = await FakePage.open(a!.url, onA, conversation, tools, { transport: 'http' })
    await manifestStored(page.clientId, `shared${databases}`)
    page.autoAnswer = false
    const onB = sameUser(onA, b!.url)
    const chat = await chatStream(onB, conversation)
    expect((await onB.say(conversation, 'Search for chess')).status).toBe(202)
    const first = await page.next((m) => m.type === 'describe')
    // The page got the call; its instance dies before any answer goes back.
    await a!.stop('SIGKILL')
    await page.close()
    // The same page load reconnects: the load balancer sends it to C this time.
    const again = await FakePage.open(c!.url, sameUser(onA, c!.url), conversation, tools, {
      transport: 'http',
      clientId: page.clientId,
    })
    // The call's waiter (B) answers it at its deadline, as a timeout; nothing ran on the page.
    expect(await chat.next((t) => t.startsWith('tool: page_describe'))).toBe(
      'tool: page_describe challenges.search → timeout',
    )
    expect(page.calls).toEqual([])
    expect(first.type).toBe('describe')
    // The next message reaches the page through C, and the tool runs once.
    await chat.next((t) => t.startsWith('assistant:'))
    expect((await onB.say(conversation, 'Search for chess')).status).toBe(202)
    expect(await chat.next((t) => t.startsWith('assistant: I found'))).toBe(
      'assistant: I found 1 challenge: Chess Openings.',
    )
    expect(again.calls).toEqual([{ tool: 'challenges.search', input: { query: 'chess' }, rev: 1 }])
    await chat.close()
    await again.close()
  }, 120_000)

  it('runs a tool once when every message between the instances is delivered twice', async () => {
    const [a, b, c] = await cluster(3)
    const { onA, conversation, state, page } = await pageOnAPostingToC(a!, c!)
    // A second copy of every entry written to an instance's inbox, as a bus that delivers at least once may.
    // Entries are deleted as soon as they are handled, so the copier looks often.
    const bus = new Redis(redis.url)
    const copied = new Set<string>()
    const duplicate = setInterval(async () => {
      try {
        for (const key of await bus.keys('toolmark:inbox:*'))
          for (const [id, fields] of await bus.xrange(key, '-', '+'))
            if (!copied.has(id)) {
              copied.add(id)
              copied.add((await bus.xadd(key, '*', ...fields)) as string)
            }
      } catch {
        // the test is over and the connection closed
      }
    }, 2)
    try {
      const onB = sameUser(onA, b!.url)
      const chat = await chatStream(onB, conversation)
      expect((await onB.say(conversation, 'create a challenge called Robotics')).status).toBe(202)
      await chat.next((t) => t.startsWith('assistant: A confirmation is waiting'))
      await page.approve([...page.pending.keys()][0]!)
      expect(await chat.next((t) => t.startsWith('assistant: Created'))).toBe(
        'assistant: Created "Robotics".',
      )
      await chat.close()
    } finally {
      clearInterval(duplicate)
      bus.disconnect()
    }
    expect(copied.size).toBeGreaterThan(4) // the calls, their answers and the page's POSTs were all doubled
    expect(page.calls.map((x) => x.tool)).toEqual(['challenges.create'])
    expect(state.challenges.filter((x) => x.name === 'Robotics')).toHaveLength(1)
    // The second copy of the page's answer reached the relay and was refused as a duplicate.
    expect(a!.output.join('')).toContain('(duplicate)')
    await page.close()
  }, 120_000)

  it('delivers an answer given while Redis restarts once it is back, and the conversation goes on', async () => {
    const [a, b] = await cluster(2)
    const onA = new Browser(a!.url)
    const conversation = await onA.createConversation()
    const state = demoState()
    const page = await FakePage.open(a!.url, onA, conversation, challengesTools(state), { transport: 'http' })
    await manifestStored(page.clientId, `shared${databases}`)
    page.autoAnswer = false
    const onB = sameUser(onA, b!.url)
    const chat = await chatStream(onB, conversation)
    expect((await onB.say(conversation, 'Search for chess')).status).toBe(202)
    const describe = await page.next((m) => m.type === 'describe')
    // Redis goes away (and comes back empty) while the page answers.
    await redis.stop()
    page.autoAnswer = true
    const tool = challengesTools(state).find((t) => t.name === 'challenges.search')!
    const { run: _run, ...entry } = tool
    page.result(describe.id, { status: 'ok', data: entry })
    await page.flush()
    await new Promise((r) => setTimeout(r, 500))
    await redis.start()
    expect(await chat.next((t) => t.startsWith('assistant: I found'), 30_000)).toBe(
      'assistant: I found 1 challenge: Chess Openings.',
    )
    expect(chat.texts).toContain('tool: page_describe challenges.search → ok')
    expect(page.calls).toEqual([{ tool: 'challenges.search', input: { query: 'chess' }, rev: 1 }])
    await chat.close()
    await page.close()
  }, 120_000)

  it("hands a POST that lands on another instance than its stream over as soon as Redis is back, before the stream's instance made its claim again", async () => {
    const [a, b, c] = await cluster(3, { CALL_DEADLINE_MS: '30000' })
    const { onA, conversation, state, page } = await pageOnAPostingToC(a!, c!)
    page.autoAnswer = false
    const onB = sameUser(onA, b!.url)
    const chat = await chatStream(onB, conversation)
    expect((await onB.say(conversation, 'Search for chess')).status).toBe(202)
    const describe = await page.next((m) => m.type === 'describe')
    await redis.stop()
    await redis.start()
    // Every instance is connected again ...
    for (const url of [a!.url, b!.url, c!.url])
      for (let i = 0; (await sameUser(onA, url).fetch('/toolmark/ready')).status !== 200; i++) {
        if (i > 200) throw new Error('an instance never got ready again')
        await new Promise((r) => setTimeout(r, 50))
      }
    // ... but the stream's claim is not made again yet (A's connection came back last, say).
    const admin = new Redis(redis.url)
    try {
      // Only this page's stream: instances of earlier tests may still hold theirs.
      const claim = `toolmark:stream:${(page.link as HttpLink).stream}`
      expect(await admin.exists(claim)).toBe(1)
      await admin.del(claim)
    } finally {
      admin.disconnect()
    }
    // The page answers now, through C.
    const tool = challengesTools(state).find((t) => t.name === 'challenges.search')!
    const { run: _run, ...entry } = tool
    page.autoAnswer = true
    page.result(describe.id, { status: 'ok', data: entry })
    await page.flush()
    expect((page.link as HttpLink).statuses.at(-1)).toBe(202)
    expect(await chat.next((t) => t.startsWith('assistant: I found'), 30_000)).toBe(
      'assistant: I found 1 challenge: Chess Openings.',
    )
    expect(chat.texts).toContain('tool: page_describe challenges.search → ok')
    await chat.close()
    await page.close()
  }, 120_000)

  it('answers 503 from every instance while PostgreSQL is down, and keeps every committed message', async () => {
    const [a, b] = await cluster(2)
    const onA = new Browser(a!.url)
    const conversation = await onA.createConversation()
    expect((await onA.say(conversation, 'hello')).status).toBe(202)
    // The turn has ended (the agent answered) before the database goes away.
    let before = await onA.messages(conversation)
    for (let i = 0; i < 200 && !before.some((m) => m.role === 'assistant'); i++) {
      await new Promise((r) => setTimeout(r, 25))
      before = await onA.messages(conversation)
    }
    expect(before.map((m) => m.role)).toEqual(['user', 'assistant'])
    await postgres.stop()
    try {
      for (const url of [a!.url, b!.url]) {
        const client = sameUser(onA, url)
        const refused = await client.fetch(`/api/conversations/${conversation}`)
        expect(refused.status).toBe(503)
        expect(await refused.json()).toEqual({
          error: { code: 'store_unavailable', message: 'The database is unavailable; try again shortly' },
        })
        expect((await client.say(conversation, 'lost?')).status).toBe(503)
        expect((await client.fetch('/toolmark/ready')).status).toBe(503)
        expect((await client.fetch('/toolmark/health')).status).toBe(200)
      }
    } finally {
      await postgres.start()
    }
    expect(await sameUser(onA, b!.url).messages(conversation)).toEqual(before)
    expect((await sameUser(onA, b!.url).fetch('/toolmark/ready')).status).toBe(200)
  }, 120_000)

  it('refuses an approval that comes after the confirmation expired while the instance that created it was down', async () => {
    const [a, b, c] = await cluster(3, { CONFIRM_TTL_MS: '1500' })
    const onA = new Browser(a!.url)
    const conversation = await onA.createConversation()
    const state = demoState()
    const tools = challengesTools(state)
    const page = await FakePage.open(a!.url, onA, conversation, tools, { transport: 'http' })
    await manifestStored(page.clientId, `shared${databases}`)
    const onB = sameUser(onA, b!.url)
    const chat = await chatStream(onB, conversation)
    expect((await onB.say(conversation, 'create a challenge called Robotics')).status).toBe(202)
    await chat.next((t) => t.startsWith('assistant: A confirmation is waiting'))
    const confirmId = [...page.pending.keys()][0]!
    // A, which bound the confirmation, dies; the confirmation's lifetime ends while it is down.
    await a!.stop('SIGKILL')
    await page.close()
    await new Promise((r) => setTimeout(r, 1600))
    const again = await FakePage.open(c!.url, sameUser(onA, c!.url), conversation, tools, {
      transport: 'http',
      clientId: page.clientId,
    })
    // An approval now (a page that kept its card, or a replayed message) is refused on C.
    again.confirmed(confirmId, { status: 'ok', data: { id: 'forged' } })
    await again.flush()
    // The pending decision ends with its time limit: the chat says so, whichever instance records it first.
    expect(await chat.next((t) => t.startsWith('tool: confirmation '))).toMatch(
      /^tool: confirmation (expired|withdrawn): .*\(its time to approve it ran out\)$/,
    )
    expect(c!.output.join('')).toContain('(expired_confirm)')
    await again.flush()
    expect(chat.texts.some((t) => t.startsWith('assistant: Created'))).toBe(false)
    expect(state.challenges.map((x) => x.name)).not.toContain('Robotics')
    await chat.close()
    await again.close()
  }, 120_000)
})
