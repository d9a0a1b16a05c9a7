import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '@toolmark/server/sqlite'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test, vi } from 'vitest'
import { DemoPage, type Frame } from '../../demo/e2e/harness.ts'
import { type RunningApp, startApp } from './app.ts'

/*
 * A pending approval outlives a restart of `next start`, in Chromium, over the HTTP transport with the
 * embedded offline agent. The route handlers keep their state in a SQLite file (`DATA_FILE`); the
 * process is stopped and started again on the same port and file.
 */

let browser: Browser
let app: RunningApp
let dir: string
let dataFile: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolmark-next-restart-'))
  dataFile = join(dir, 'next-demo.db')
  ;[browser, app] = await Promise.all([chromium.connect(inject('browserWSEndpoint')), startApp({ dataFile })])
})
afterAll(async () => {
  await browser?.close()
  await app?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** A result the page sent that asks the user to confirm. */
const asksToConfirm = (f: Frame): boolean =>
  f.direction === 'sent' &&
  f.message.type === 'result' &&
  (f.message.result as { status?: string }).status === 'needs_confirmation'

/** The state of `confirmId` as the SQLite file holds it, read through a store of its own. */
async function confirmState(confirmId: string): Promise<string | undefined> {
  const store = openSqliteStore(dataFile)
  try {
    return (await store.getConfirm(confirmId))?.state
  } finally {
    await store.close()
  }
}

/**
 * Sends a `confirmed` for `confirmId` from the page, on a page connection of its own (an event stream
 * and a POST naming it), as a page that kept an old card would.
 */
async function approveFromPage(demo: DemoPage, confirmId: string, clientId: string): Promise<number> {
  return demo.page.evaluate(
    async ([id, client]) => {
      const conversation = localStorage.getItem('toolmark-demo:conversation') ?? ''
      const events = new EventSource(`/toolmark/events?conversation=${encodeURIComponent(conversation)}`)
      try {
        const stream = await new Promise<string>((resolve, reject) => {
          events.addEventListener('ready', (event) =>
            resolve((JSON.parse((event as MessageEvent<string>).data) as { stream: string }).stream),
          )
          events.onerror = () => reject(new Error('the event stream failed'))
        })
        const response = await fetch('/toolmark/messages', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-toolmark-stream': stream },
          body: JSON.stringify({
            protocol: 1,
            type: 'confirmed',
            clientId: client,
            confirmId: id,
            result: { status: 'ok', data: { name: 'Quantum Computing' } },
          }),
        })
        return response.status
      } finally {
        events.close()
      }
    },
    [confirmId, clientId] as const,
  )
}

test('a restart of next start while a card is pending changes nothing: the reloaded page asks again, approved once', async () => {
  const demo = await DemoPage.open(browser, app.url, '/challenges')
  const card = demo.page.locator('[data-testid="confirm-card"][data-tool="challenges.create"]')
  await demo.ask('Create a challenge called Quantum Computing')
  const pending = await demo.waitForFrame(asksToConfirm)
  const confirmId = (pending.message.result as { confirmId: string }).confirmId
  const oldClient = pending.message.clientId as string
  await card.waitFor()
  expect(await confirmState(confirmId)).toBe('pending')

  // The process stops (its page connections and waiters gone) and starts again on the same port and file.
  // It stops on SIGTERM: the app closes its Toolmark server, which ends the page's event streams, so Next's
  // graceful stop does not wait for them until it is killed. The browser reconnects them after its retry
  // delay (3 s) and is answered 503 with `Connection: close`, so Node does not keep those connections alive
  // for another 5 s either.
  await app.restart()
  expect(app.stoppedBy).toBe('SIGTERM')
  const from = demo.frames.length
  const newClient = await demo.reload()
  expect(newClient).not.toBe(oldClient)
  const asked = await demo.waitForFrame(
    (f) => asksToConfirm(f) && f.message.clientId === newClient,
    10_000,
    from,
  )
  const newConfirmId = (asked.message.result as { confirmId: string }).confirmId
  expect(newConfirmId).not.toBe(confirmId)
  await card.waitFor()
  expect(await demo.page.getByTestId('confirm-card').count()).toBe(1)
  expect(await demo.challengeNames()).not.toContain('Quantum Computing')

  // The old card's confirmId is expired: the store says so, and an approval with it is refused.
  await vi.waitFor(async () => expect(await confirmState(confirmId)).toBe('expired'), { timeout: 5000 })
  const conversation = await demo.conversationId()
  expect(await approveFromPage(demo, confirmId, oldClient)).toBe(202)
  // The relay logs the refusal with the page's ids quoted.
  const refused = `[relay] rejected confirmed (expired_confirm) conversation=${conversation} clientId=${JSON.stringify(oldClient)} id=${JSON.stringify(confirmId)}`
  await vi.waitFor(() => expect(app.output.join('')).toContain(refused), { timeout: 5000 })
  expect(await demo.challengeNames()).not.toContain('Quantum Computing')

  // Approved on the reloaded page: the tool runs once and the agent, on the new process, acknowledges it.
  const before = (await demo.messages('assistant')).length
  await card.getByTestId('confirm-approve').click()
  const followUp = await demo.waitForAssistant(before)
  expect(followUp.join('\n')).toContain('Quantum Computing')
  expect((await demo.challengeNames()).filter((name) => name === 'Quantum Computing')).toHaveLength(1)
  // The page load's one approval is the card's (the refused one above went out under the old clientId).
  const approvals = demo.frames.filter(
    (f) => f.direction === 'sent' && f.message.type === 'confirmed' && f.message.clientId === newClient,
  )
  expect(approvals.map((f) => f.message.confirmId)).toEqual([newConfirmId])
  expect(await confirmState(newConfirmId)).toBe('used')
  await demo.close()
}, 60_000)
