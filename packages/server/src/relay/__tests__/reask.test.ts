import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ToolResult } from '@toolmark/core'
import { EXPIRED_RESULT, REFUSED_MESSAGES, wrapUntrusted } from '@toolmark/protocol'
import pg from 'pg'
import { describe, expect, inject, it, onTestFinished, vi } from 'vitest'
import { FakePage, fakeTool, type FakePage as Page } from '../../__tests__/support/fake-page.ts'
import { Browser } from '../../__tests__/support/http-client.ts'
import { ScriptedProvider, toolCall } from '../../__tests__/support/scripted-provider.ts'
import { DEPLOYMENT, testServers } from '../../__tests__/support/test-server.ts'
import { serve } from '../../node.ts'
import { openPostgresStore } from '../../postgres.ts'
import { createRedisCluster } from '../../redis.ts'
import { createToolmarkServer, type ToolmarkServerOptions } from '../../server.ts'
import { manualClock } from '../../shared/clock.ts'
import { openSqliteStore } from '../../sqlite.ts'

const DEADLINE = 15_000
const TTL = 60_000
const server = testServers({ config: { callDeadlineMs: DEADLINE, confirmationTtlMs: TTL } })

/** A consequential tool that counts its runs (a run happens when a card is approved). */
function saveTool(description = 'Save a note') {
  const runs: Array<Record<string, unknown>> = []
  const tool = fakeTool('notes.save', description, { consequential: true }, { type: 'object' }, (input) => {
    runs.push(input)
    return { status: 'ok', data: 'saved' } as ToolResult
  })
  return { tool, runs }
}

/** Each user message makes one page_call of `notes.save` with `input`; the follow-up turn answers 'acknowledged'. */
function provider(input: Record<string, unknown> = { name: 'Groceries' }): ScriptedProvider {
  const p = new ScriptedProvider([])
  let n = 0
  p.stream = async function* (request) {
    p.requests.push(
      structuredClone({ system: request.system, messages: request.messages, tools: request.tools }),
    )
    if (request.tools.length === 0) return yield { type: 'text' as const, delta: 'acknowledged' }
    if (request.messages.at(-1)?.role === 'user')
      yield toolCall(`tc${++n}`, 'page_call', { tool: 'notes.save', input })
    else yield { type: 'text' as const, delta: 'Approve the card on the page.' }
  }
  return p
}

const followUps = (p: ScriptedProvider) => p.requests.filter((r) => r.tools.length === 0).length

/** Opens a page, asks for a save, and waits until its card is pending. */
async function cardPending(
  options: {
    input?: Record<string, unknown>
    clock?: ReturnType<typeof manualClock>
    sensitivePaths?: string[]
  } = {},
) {
  const p = provider(options.input)
  const t = await server({ provider: p, ...(options.clock ? { clock: options.clock } : {}) })
  const save = saveTool()
  if (options.sensitivePaths) save.tool.sensitivePaths = options.sensitivePaths
  const browser = await t.browser()
  const conversation = await browser.createConversation()
  const first = await FakePage.open(t.server.url, browser, conversation, [save.tool])
  await browser.say(conversation, 'save it')
  await t.server.agent.idle(conversation)
  const [confirmId] = [...first.pending.keys()]
  expect(confirmId).toBeDefined()
  return { t, p, save, browser, conversation, first, confirmId: confirmId! }
}

/** Opens a new page load (a reload) and waits for the call asked again there. */
async function reload(url: string, browser: Page['browser'], conversation: string, tools: Page['tools']) {
  const page = await FakePage.open(url, browser, conversation, tools, { manifest: false })
  const asked = page.next((m) => m.type === 'call')
  await page.sendManifest()
  const call = await asked
  await page.flush()
  return { page, call }
}

describe('a pending confirmation survives a reload: the new page load is asked again', () => {
  it('asks the reloaded page with a new confirmId; approving runs the tool once, one follow-up; the old confirmId is expired', async () => {
    const { t, p, save, browser, conversation, first, confirmId } = await cardPending()
    await first.close()
    const { page, call } = await reload(t.server.url, browser, conversation, [save.tool])
    expect(call).toMatchObject({ type: 'call', tool: 'notes.save', input: { name: 'Groceries' } })
    const [again] = [...page.pending.keys()]
    expect(again).toBeDefined()
    expect(again).not.toBe(confirmId)
    expect((await t.server.store.getConfirm(confirmId))!.state).toBe('expired')
    // The agent is not told the card expired: it is back.
    expect((await browser.messages(conversation)).some((m) => m.text.includes('confirmation expired'))).toBe(
      false,
    )

    await page.approve(again!)
    await t.server.agent.idle(conversation)
    expect(save.runs).toHaveLength(1)
    expect(followUps(p)).toBe(1)
    const outcome = (await t.server.store.listMessages(conversation)).find(
      (m) => m.agent && 'confirmId' in m.agent,
    )
    expect(outcome?.agent).toMatchObject({ role: 'tool', toolCallId: 'tc1', confirmId: again })

    // The old page load's late `confirmed` (sent as it unloaded) is refused as expired: no second follow-up.
    page.confirmed(confirmId, { status: 'ok', data: 'saved' }, first.clientId)
    await page.flush()
    await t.server.agent.idle(conversation)
    expect(t.rejections).toMatchObject([{ reason: 'expired_confirm', id: confirmId }])
    expect(followUps(p)).toBe(1)
    // A second reload asks nothing: the decision is made.
    const later = await FakePage.open(t.server.url, browser, conversation, [save.tool])
    await later.flush()
    expect(later.calls).toEqual([])
  })

  it('with the old tab still open, both cards answered at once: the first counts, the other is withdrawn', async () => {
    const { t, p, save, browser, conversation, first, confirmId } = await cardPending()
    const { page } = await reload(t.server.url, browser, conversation, [save.tool])
    const [again] = [...page.pending.keys()]
    // Both tabs approve at the same moment (their runs are page-side; the server counts one answer).
    first.confirmed(confirmId, { status: 'ok', data: 'saved' })
    page.confirmed(again!, { status: 'ok', data: 'saved' })
    await Promise.all([first.flush(), page.flush()])
    // In shared mode each answer may be handled on another instance: wait until both are decided.
    await vi.waitFor(() => expect(t.rejections).toHaveLength(1), { timeout: 10_000 })
    await t.server.agent.idle(conversation)
    expect(followUps(p)).toBe(1)
    const outcomes = (await t.server.store.listMessages(conversation)).filter(
      (m) => m.agent && 'confirmId' in m.agent,
    )
    expect(outcomes).toHaveLength(1)
    expect(t.rejections).toHaveLength(1)
    // Whichever came second: its confirmId was withdrawn, or it lost the decision.
    expect(t.rejections[0]).toMatchObject({ reason: 'expired_confirm' })
  })

  it('an answer that loses the race to a withdrawal is refused as expired, not as a duplicate', async () => {
    const { t, save, browser, conversation, first, confirmId } = await cardPending()
    await reload(t.server.url, browser, conversation, [save.tool])
    // The old card is read while still pending, then withdrawn (another page load answered) before it is used.
    const store = t.server.store
    const read = store.getConfirm.bind(store)
    let raced = false
    store.getConfirm = async (id) => {
      const binding = await read(id)
      if (id === confirmId && !raced) {
        raced = true
        await store.settleConfirm(id, 'expired')
      }
      return binding
    }
    first.confirmed(confirmId, { status: 'ok', data: 'saved' })
    await first.flush()
    await vi.waitFor(() => expect(t.rejections).toHaveLength(1), { timeout: 10_000 })
    expect(raced).toBe(true)
    expect(t.rejections[0]).toMatchObject({ reason: 'expired_confirm', id: confirmId })
  })

  it('withdraws the card of the old tab with a cancel when the reloaded page answers first', async () => {
    const { t, p, save, browser, conversation, first, confirmId } = await cardPending()
    const { page } = await reload(t.server.url, browser, conversation, [save.tool])
    const callId = (first.inbox.find((m) => m.type === 'call') as { id: string }).id
    const cancel = first.next((m) => m.type === 'cancel')
    await page.approve([...page.pending.keys()][0]!)
    expect(await cancel).toMatchObject({ type: 'cancel', id: callId })
    expect((await t.server.store.getConfirm(confirmId))!.state).toBe('expired')
    // A late approval in the old tab counts for nothing.
    first.confirmed(confirmId, { status: 'ok', data: 'saved' })
    await first.flush()
    await t.server.agent.idle(conversation)
    expect(t.rejections).toMatchObject([{ reason: 'expired_confirm', id: confirmId }])
    expect(save.runs).toHaveLength(1)
    expect(followUps(p)).toBe(1)
  })

  it('tells the agent stale when the reloaded page has a changed tool, and asks nothing', async () => {
    const { t, browser, conversation, first } = await cardPending()
    await first.close()
    const changed = saveTool('Save a note, and share it with the team')
    const page = await FakePage.open(t.server.url, browser, conversation, [changed.tool])
    await page.flush()
    await t.server.agent.idle(conversation)
    expect(page.calls).toEqual([])
    const told = (await t.server.store.listMessages(conversation)).at(-1)
    const stale: ToolResult = {
      status: 'refused',
      code: 'stale',
      message: REFUSED_MESSAGES.staleTool,
      rev: 1,
    }
    expect(told).toMatchObject({
      role: 'tool',
      text: expect.stringContaining('confirmation withdrawn'),
      agent: { role: 'tool', toolCallId: 'tc1', content: JSON.stringify(wrapUntrusted(stale)) },
    })
  })

  it('asks nothing once the decision outlived the confirmation TTL; the agent is told it expired', async () => {
    const clock = manualClock()
    const { t, save, browser, conversation, first } = await cardPending({ clock })
    await first.close()
    clock.advance(TTL + 1)
    const page = await FakePage.open(t.server.url, browser, conversation, [save.tool])
    await page.flush()
    await t.server.agent.idle(conversation)
    expect(page.calls).toEqual([])
    expect((await t.server.store.listMessages(conversation)).at(-1)?.agent).toMatchObject({
      role: 'tool',
      toolCallId: 'tc1',
      content: JSON.stringify(wrapUntrusted(EXPIRED_RESULT)),
    })
  })

  it('an approval past the lifetime is told once: no later page load asks it again', async () => {
    const clock = manualClock()
    const { t, p, save, browser, conversation, first, confirmId } = await cardPending({ clock })
    clock.advance(TTL + 1)
    await first.approve(confirmId)
    await t.server.agent.idle(conversation)
    expect(t.rejections).toMatchObject([{ reason: 'expired_confirm', id: confirmId }])
    const expired = JSON.stringify(wrapUntrusted(EXPIRED_RESULT))
    const told = async () =>
      (await t.server.store.listMessages(conversation)).filter(
        (m) => m.agent?.role === 'tool' && m.agent.content === expired,
      )
    expect(await told()).toHaveLength(1)
    await first.close()
    const page = await FakePage.open(t.server.url, browser, conversation, [save.tool])
    await page.flush()
    await t.server.agent.idle(conversation)
    expect(page.calls).toEqual([])
    expect(await told()).toHaveLength(1)
    expect(followUps(p)).toBe(0)
  })

  it('stores no secret of the pending call: such a call is never asked again, and the agent is told it expired', async () => {
    const secret = 'correct-horse-battery-staple'
    const { t, save, browser, conversation, first } = await cardPending({
      input: { name: 'N', passphrase: secret },
      sensitivePaths: ['passphrase'],
    })
    // The input holds a value at a sensitive path: the decision keeps no input.
    const [decision] = await t.server.store.pendingDecisions!(conversation)
    expect(decision).toBeDefined()
    expect(JSON.stringify(decision)).not.toContain(secret)
    expect(decision!.input).toBeUndefined()
    await first.close()
    const page = await FakePage.open(t.server.url, browser, conversation, [save.tool])
    await page.flush()
    await t.server.agent.idle(conversation)
    expect(page.calls).toEqual([])
    expect((await browser.messages(conversation)).at(-1)).toMatchObject({
      role: 'tool',
      text: expect.stringContaining('confirmation expired'),
    })
  })
})

describe('a pending confirmation survives a server restart', () => {
  /**
   * One server on a durable store (SQLite file on one instance; PostgreSQL and Redis in shared mode), closed,
   * then a new server on the same store and port: what the user still has to decide is asked again.
   */
  async function durable(): Promise<{
    open: () => Promise<Pick<ToolmarkServerOptions, 'store' | 'cluster'>>
    done: () => Promise<void>
  }> {
    const closers: Array<() => Promise<unknown>> = []
    const shared = inject('sharedDeployment')
    if (DEPLOYMENT === 'three' && shared) {
      const id = `reask_${process.pid}_${randomUUID().slice(0, 8)}`
      const admin = new pg.Client({ connectionString: shared.postgresUrl })
      await admin.connect()
      await admin.query(`CREATE SCHEMA ${id}`)
      await admin.end()
      const url = `${shared.postgresUrl}?options=${encodeURIComponent(`-c search_path=${id}`)}`
      let n = 0
      return {
        open: async () => {
          const store = await openPostgresStore({ url, max: 2 })
          const cluster = createRedisCluster({
            url: shared.redisUrl,
            prefix: `toolmark:${id}:`,
            instance: `I${++n}`,
          })
          closers.push(
            () => store.close(),
            () => cluster.close(),
          )
          return { store, cluster }
        },
        done: async () => {
          for (const close of closers) await close().catch(() => {})
        },
      }
    }
    const dir = mkdtempSync(join(tmpdir(), 'toolmark-reask-'))
    return {
      open: async () => {
        const store = openSqliteStore(join(dir, 'store.db'))
        closers.push(() => store.close())
        return { store }
      },
      done: async () => {
        for (const close of closers) await close().catch(() => {})
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }

  it('asks the reloaded page again after a restart; approving runs the tool once, with one follow-up', async () => {
    const state = await durable()
    onTestFinished(() => state.done())
    const p = provider()
    const save = saveTool()
    const boot = async (port = 0) => {
      const toolmark = createToolmarkServer({ ...(await state.open()), provider: p, log: () => {} })
      return { toolmark, node: await serve(toolmark, { port, host: '127.0.0.1', log: () => {} }) }
    }
    const before = await boot()
    const browser = new Browser(before.node.url)
    const conversation = await browser.createConversation()
    const first = await FakePage.open(before.node.url, browser, conversation, [save.tool])
    await browser.say(conversation, 'save it')
    await before.toolmark.agent.idle(conversation)
    const [confirmId] = [...first.pending.keys()]
    expect(confirmId).toBeDefined()

    // The server restarts while the card is pending; the page reloads against the new server.
    await before.node.close()
    const after = await boot(before.node.port)
    onTestFinished(() => after.node.close())
    const { page, call } = await reload(after.node.url, browser, conversation, [save.tool])
    expect(call).toMatchObject({ type: 'call', tool: 'notes.save', input: { name: 'Groceries' } })
    const [again] = [...page.pending.keys()]
    expect(again).not.toBe(confirmId)
    await page.approve(again!)
    // Outside the harness a page's flush proves delivery only: wait for the server to handle the answer.
    await vi.waitFor(() => expect(followUps(p)).toBe(1))
    await after.toolmark.agent.idle(conversation)
    expect(save.runs).toHaveLength(1)
    expect(followUps(p)).toBe(1)
    expect((await after.toolmark.store.getConfirm(confirmId!))?.state).toBe('expired')
    await page.close()
  })
})
