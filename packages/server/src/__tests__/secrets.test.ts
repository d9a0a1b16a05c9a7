import { connect } from 'node:net'
import type { ToolResult } from '@toolmark/core'
import { Redis } from 'ioredis'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { AtRest } from './support/deployment.ts'
import { FakePage, fakeTool } from './support/fake-page.ts'
import { Browser, readEvents } from './support/http-client.ts'
import { TRANSPORTS } from './support/page-links.ts'
import { ScriptedProvider, toolCall } from './support/scripted-provider.ts'
import { DEPLOYMENT, testServer } from './support/test-server.ts'

/*
 * Where a call's input and result could come to rest, each checked after a turn that sends real secrets to
 * the page: the store's rows (SQLite file, memory store, PostgreSQL), Redis keys and stream entries (three
 * instances), the log lines, the chat events. The page gets the real values; nothing else keeps them.
 */

const CARD = '4242 4242 4242 4242'
const CVC = '123'
const PIN = '7395'
const PASSWORD = 'hunter2-Zq9'
/** Only the tool's sensitive paths mark it: no heuristic would find it. */
const MEMO = 'k9x2z-memo'

/** The secrets found in `text`. */
function leaks(text: string): string[] {
  const found: string[] = []
  if (text.includes(CARD) || text.includes(CARD.replaceAll(' ', ''))) found.push('card number')
  // Standalone numbers only: the digits inside an id or a timestamp are not the CVC or the PIN.
  for (const [name, value] of [
    ['CVC', CVC],
    ['PIN', PIN],
  ] as const)
    if (new RegExp(`(^|[^0-9A-Za-z])${value}([^0-9A-Za-z]|$)`).test(text)) found.push(name)
  if (text.includes(PASSWORD)) found.push('password')
  if (text.includes(MEMO)) found.push('memo')
  return found
}

const input = { card: { number: CARD, cvc: CVC }, pin: PIN, password: PASSWORD, memo: MEMO }
const sensitivePaths = ['card.number', 'card.cvc', 'pin', 'password', 'memo']
const schema = {
  type: 'object',
  properties: {
    card: {
      type: 'object',
      properties: { number: { type: 'string', writeOnly: true }, cvc: { type: 'string', writeOnly: true } },
    },
    pin: { type: 'string', writeOnly: true },
    password: { type: 'string', writeOnly: true },
    memo: { type: 'string', writeOnly: true },
  },
}
/** A careless page: its result repeats the whole input. */
const pay = {
  ...fakeTool('billing.pay', 'Pay with a card', { readOnly: true }, schema, (i) => ({
    status: 'ok',
    data: { paid: true, echo: i },
  })),
  sensitivePaths,
}
/** Asks for a confirmation whose summary repeats the secrets; once approved, its result repeats the card. */
const save = {
  ...fakeTool('billing.save', 'Save the card', { consequential: true }, schema, (i) => ({
    status: 'ok',
    data: { saved: true, card: i.card, pin: i.pin, password: i.password, memo: i.memo },
  })),
  sensitivePaths,
  summarize: (i: Record<string, unknown>) => {
    const card = i.card as { number: string; cvc: string }
    return `Save card ${card.number} (CVC ${card.cvc}, PIN ${String(i.pin)}, password ${String(i.password)}, memo ${String(i.memo)})`
  },
}

/** The chat events of the conversation from now on, as their texts. */
async function chatEvents(browser: Browser, conversation: string): Promise<string[]> {
  const controller = new AbortController()
  onTestFinished(() => controller.abort())
  const response = await browser.fetch(`/api/conversations/${conversation}/events`, {
    signal: controller.signal,
  })
  const events: string[] = []
  const reader = readEvents(response.body!)[Symbol.asyncIterator]()
  await reader.next()
  void (async () => {
    for (;;) {
      const next = await reader.next().catch(() => ({ done: true as const, value: undefined }))
      if (next.done) return
      events.push(next.value.data)
    }
  })()
  return events
}

/**
 * Every command that reaches the deployment's Redis (those naming its keys, by their prefix), with the
 * arguments as sent, recorded until the test ends: a connection of its own in `MONITOR` mode, read raw.
 */
async function monitor(url: string, prefix: string): Promise<string[][]> {
  const commands: string[][] = []
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port), hostname)
  onTestFinished(() => {
    socket.destroy()
  })
  let buffered = ''
  let started: () => void = () => {}
  const ready = new Promise<void>((resolve) => {
    started = resolve
  })
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => {
    buffered += chunk
    for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 2)
      if (line === '+OK') started()
      else if (line.includes(prefix)) commands.push(monitorArgs(line))
    }
  })
  socket.write('MONITOR\r\n')
  await ready
  return commands
}

/** The arguments of a `MONITOR` line (`+<time> [<db> <client>] "arg" "arg"…`, each quoted and escaped), as UTF-8. */
function monitorArgs(line: string): string[] {
  const args: string[] = []
  const escapes: Record<string, string> = {
    n: '\n',
    r: '\r',
    t: '\t',
    a: '\x07',
    b: '\b',
    '"': '"',
    '\\': '\\',
  }
  for (let at = line.indexOf('] ') + 2; at < line.length; ) {
    if (line[at] !== '"') {
      at++
      continue
    }
    let arg = ''
    for (at++; at < line.length && line[at] !== '"'; at++) {
      if (line[at] !== '\\') arg += line[at]
      else if (line[at + 1] === 'x') {
        arg += String.fromCharCode(Number.parseInt(line.slice(at + 2, at + 4), 16))
        at += 3
      } else arg += escapes[line[++at]!] ?? line[at]
    }
    args.push(Buffer.from(arg, 'latin1').toString('utf8'))
    at++
  }
  return args
}

/** True for a command that writes a call on its way to the page's instance (the real input must cross). */
function handsOverACall(args: string[]): boolean {
  try {
    const message = JSON.parse(args.at(-1) ?? '') as { kind?: unknown; message?: { type?: unknown } }
    return message.kind === 'send' && message.message?.type === 'call'
  } catch {
    return false
  }
}

/** Resolves once every inbox stream is empty (each entry is deleted once handled), else the test times out. */
async function inboxesEmptied(atRest: () => Promise<AtRest>): Promise<AtRest> {
  for (;;) {
    const kept = await atRest()
    const inboxes = kept.keys.filter((k) => k.type === 'stream' && /:inbox:/.test(k.key))
    if (inboxes.every((k) => (k.value as unknown[]).length === 0)) return kept
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The stores each test runs on: one instance's SQLite file and memory store, or three instances' PostgreSQL. */
const stores = DEPLOYMENT === 'single' ? (['sqlite-file', 'memory'] as const) : (['postgres'] as const)

describe.each(TRANSPORTS)('secrets at rest, over the %s transport', (transport) => {
  it.each(stores)(
    'no card, CVC, PIN, password or sensitive-path value rests anywhere (store: %s)',
    async (store) => {
      const provider = new ScriptedProvider([
        () => [toolCall('d1', 'page_describe', { tool: 'billing.pay' })],
        () => [
          toolCall('c1', 'page_call', { tool: 'billing.pay', input }),
          toolCall('c2', 'page_call', { tool: 'billing.save', input }),
        ],
        () => [{ type: 'text', delta: 'Paid. Approve saving the card in the page.' }],
        () => [{ type: 'text', delta: 'Saved.' }],
        () => [{ type: 'text', delta: 'You are welcome.' }],
      ])
      const t = await testServer({ provider, ...(store === 'postgres' ? {} : { store }) })
      const redis = t.server.redis
      const commands = redis ? await monitor(redis.url, redis.prefix) : []
      const browser = await t.browser()
      const conversation = await browser.createConversation()
      const page = await FakePage.open(t.server.url, browser, conversation, [pay, save], { transport })
      // The chat stream on the instance the chat's turns run on (B of three), so it gets their events.
      const chat = new Browser(t.server.instances.at(1) ?? t.server.url)
      chat.cookie = browser.cookie
      const streamed = await chatEvents(chat, conversation)

      await browser.say(conversation, `pay with my card ${CARD}, cvc ${CVC}, and save it`)
      await t.server.agent.idle(conversation)
      // The page ran the tools with the real values, and the turn's model saw its results as they came.
      expect(page.calls.map((c) => c.input)).toEqual([input, input])
      const confirmId = [...page.pending.keys()][0]!
      const approved: ToolResult = await page.approve(confirmId)
      expect(approved).toMatchObject({ status: 'ok', data: { card: { number: CARD } } })
      await t.server.agent.idle(conversation)
      await browser.say(conversation, 'thanks')
      await t.server.agent.idle(conversation)
      await t.settled()

      const kept = redis ? await inboxesEmptied(() => t.server.atRest()) : await t.server.atRest()
      // The dump holds the turn, masked: the call's input and the page's results are there, their secrets not.
      expect(JSON.stringify(kept.rows)).toContain('[redacted]')
      expect(leaks(JSON.stringify(kept.rows))).toEqual([])
      expect(leaks(JSON.stringify(kept.keys))).toEqual([])
      expect(leaks(t.logs.join('\n'))).toEqual([])
      // The stream was open all along: it got the last message (from another instance, maybe: wait for it).
      while (!streamed.join('\n').includes('You are welcome.'))
        await new Promise((resolve) => setTimeout(resolve, 20))
      expect(leaks(streamed.join('\n'))).toEqual([])
      expect(leaks(JSON.stringify(await browser.messages(conversation)))).toEqual([])
      if (!redis) return
      // Every key expires.
      for (const { key, ttl } of kept.keys) expect({ key, expires: ttl > 0 }).toEqual({ key, expires: true })
      // What crossed Redis: the calls to the page's instance carried the real input (deleted once handled, as
      // checked above); nothing else carried a secret, the results crossing back included.
      const carrying = commands.filter((args) => leaks(args.join(' ')).length > 0)
      expect(carrying.length).toBeGreaterThan(0)
      expect(carrying.filter((args) => !handsOverACall(args))).toEqual([])
    },
  )
})

// Redis's bounds, with real turns: three instances only (one instance has no Redis).
if (DEPLOYMENT === 'three')
  describe('Redis after many turns', () => {
    it('keeps no inbox or chat event entry once handled, and every key expires', async () => {
      const turns = 10
      const provider = new ScriptedProvider(
        Array.from({ length: turns }, () => [
          () => [toolCall('c', 'page_call', { tool: 'billing.pay', input })],
          () => [{ type: 'text' as const, delta: 'Paid.' }],
        ]).flat(),
      )
      const t = await testServer({ provider })
      const browser = await t.browser()
      const conversation = await browser.createConversation()
      const page = await FakePage.open(t.server.url, browser, conversation, [pay])
      const chat = new Browser(t.server.instances[1]!)
      chat.cookie = browser.cookie
      await chatEvents(chat, conversation)
      for (let i = 0; i < turns; i++) {
        await browser.say(conversation, 'pay again')
        await t.server.agent.idle(conversation)
      }
      expect(page.calls).toHaveLength(turns)
      await t.settled()
      const kept = await inboxesEmptied(() => t.server.atRest())
      const { url, prefix } = t.server.redis!
      const redis = new Redis(url)
      onTestFinished(() => redis.disconnect())
      // Every call and answer went through the inboxes (two hand-overs a turn)…
      let added = 0
      for (const { key } of kept.keys.filter((k) => /:inbox:/.test(k.key))) {
        const info = (await redis.xinfo('STREAM', key)) as unknown[]
        added += Number(info[info.indexOf('entries-added') + 1])
      }
      expect(added).toBeGreaterThanOrEqual(2 * turns)
      // …and none stayed: no inbox or instance event stream holds an entry; the shared one holds ids only.
      for (const { key, type, value } of kept.keys.filter((k) => k.type === 'stream'))
        if (key !== `${prefix}events`) expect({ key, type, value }).toEqual({ key, type, value: [] })
      for (const { key, ttl } of kept.keys) expect({ key, expires: ttl > 0 }).toEqual({ key, expires: true })
      expect(leaks(JSON.stringify(kept.keys))).toEqual([])
    })
  })
