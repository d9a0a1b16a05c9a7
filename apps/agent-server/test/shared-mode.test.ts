import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { challengesTools, demoState } from '../../../packages/offline-agent/test/demo-tools.ts'
import {
  startPostgres,
  startProcess,
  startRedis,
  type TestPostgres,
  type TestProcess,
  type TestRedis,
} from '../../../tests/support/servers.ts'
import { Browser, FakePage, type HttpLink, readEvents } from './helpers.ts'

/*
 * Shared mode with real parts: three agent-server processes (the same code as one instance, switched by
 * DATABASE_URL and REDIS_URL), one Redis, one PostgreSQL, each started here on free loopback ports.
 */

const APP = fileURLToPath(new URL('..', import.meta.url))
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
})

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
  const texts: string[] = []
  const reading = (async () => {
    try {
      for await (const event of readEvents(response.body!)) {
        const data = JSON.parse(event.data) as { type: string; message?: { role: string; text: string } }
        if (data.type === 'message' && data.message?.role === 'assistant') texts.push(data.message.text)
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

describe('shared mode: three instances, one Redis, one PostgreSQL', () => {
  it('runs a tool once on a page held by A, for a chat posted to B and a card approved through C', async () => {
    const [a, b, c] = await cluster(3)
    const onA = new Browser(a!.url)
    const conversation = await onA.createConversation()
    const state = demoState()
    // The page's event stream is on A; every message it POSTs lands on C (no sticky sessions).
    const page = await FakePage.open(a!.url, onA, conversation, challengesTools(state), {
      transport: 'http',
      manifest: false,
    })
    ;(page.link as HttpLink).postTo = c!.url
    await page.sendManifest()
    await manifestStored(page.clientId, `shared${databases}`)

    const onB = sameUser(onA, b!.url)
    const chat = await chatStream(onB, conversation)
    expect((await onB.say(conversation, 'create a challenge called Robotics')).status).toBe(202)
    expect(await chat.next((t) => t.startsWith('A confirmation is waiting'))).toBe(
      'A confirmation is waiting in the page: Create challenge "Robotics". Approve or reject it there.',
    )
    expect(page.calls).toEqual([{ tool: 'challenges.create', input: { name: 'Robotics' }, rev: 1 }])
    expect(state.challenges.map((x) => x.name)).not.toContain('Robotics')

    await page.approve([...page.pending.keys()][0]!)
    // The follow-up turn runs where the confirmation arrived; its answer reaches the stream on B.
    expect(await chat.next((t) => t.startsWith('Created'))).toBe('Created "Robotics".')
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
})
