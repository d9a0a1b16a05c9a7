import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { startUseChatServer, type UseChatServer } from '../server.ts'

let server: UseChatServer
let browser: Browser

beforeAll(async () => {
  server = await startUseChatServer({ port: 0, staticDir: inject('staticDir') })
  browser = await chromium.connect(inject('browserWSEndpoint'))
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** A fresh page load (a new conversation) with the bridge attached and both tools registered. */
async function open(query = ''): Promise<Page> {
  const page = await browser.newPage()
  page.on('pageerror', (error) => console.error(`[page] ${error.message}`))
  await page.goto(`${server.url}/${query}`)
  await page.getByTestId('chat-input').waitFor()
  return page
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('chat-input').fill(text)
  await page.getByTestId('send').click()
}

/** Waits until useChat is ready again (the stream ended) and returns the assistant's text. */
async function settled(page: Page): Promise<string> {
  await page.waitForFunction(() =>
    ['ready', 'error'].includes(document.querySelector('[data-testid="status"]')?.textContent ?? ''),
  )
  // A failed request says why, instead of a timeout.
  if ((await page.getByTestId('status').textContent()) === 'error')
    throw new Error(`useChat failed: ${await page.getByTestId('chat-error').textContent()}`)
  return (await page.getByTestId('message-assistant').last().textContent()) ?? ''
}

test('a read-only page tool runs and its typed tool part renders with input and output', async () => {
  const page = await open()
  await send(page, 'search notes for chess')
  const part = page.locator('[data-testid="tool-part"][data-type="tool-notes.search"]')
  await part.waitFor()
  await expect.poll(() => part.getAttribute('data-state')).toBe('output-available')
  expect(JSON.parse((await part.getByTestId('tool-input').textContent()) ?? '')).toEqual({ query: 'chess' })
  expect(JSON.parse((await part.getByTestId('tool-output').textContent()) ?? '')).toEqual(['Chess openings'])
  expect(await settled(page)).toContain('Chess openings')
  await page.close()
})

test('a destructive call asks for approval; approving runs it once on the page and the follow-up arrives', async () => {
  const page = await open()
  await send(page, 'delete the note called "Kite building"')
  const part = page.locator('[data-testid="tool-part"][data-type="tool-notes.delete"]')
  await expect.poll(() => part.getAttribute('data-state'), { timeout: 15_000 }).toBe('approval-requested')
  expect(await settled(page)).toContain('A confirmation is waiting in the page: Delete "Kite building".')
  expect(await page.getByTestId('delete-runs').textContent()).toBe('0')
  await part.getByTestId('approve').click()
  await expect.poll(() => part.getAttribute('data-state'), { timeout: 15_000 }).toBe('output-available')
  expect(JSON.parse((await part.getByTestId('tool-output').textContent()) ?? '')).toEqual({
    deleted: 'Kite building',
  })
  const text = await settled(page)
  expect(await page.getByTestId('delete-runs').textContent()).toBe('1')
  expect(await page.getByTestId('note').allTextContents()).not.toContain('Kite building')
  // The follow-up turn's text lands in the same assistant message as the approval.
  expect(await page.getByTestId('message-assistant').count()).toBe(1)
  expect(text).toMatch(/Deleted "Kite building"\.$/)
  await page.close()
})

test('a reload while an approval waits: the part comes back from the server, and approving runs the tool once', async () => {
  const page = await open()
  await send(page, 'delete the note called "Kite building"')
  const part = page.locator('[data-testid="tool-part"][data-type="tool-notes.delete"]')
  await expect.poll(() => part.getAttribute('data-state'), { timeout: 15_000 }).toBe('approval-requested')
  await settled(page)
  await page.reload()
  // The history comes from the server; the user's pending decision is asked again on this page load.
  await page.getByTestId('chat-input').waitFor()
  await expect.poll(() => part.getAttribute('data-state'), { timeout: 15_000 }).toBe('approval-requested')
  expect(await page.getByTestId('message-user').allTextContents()).toEqual([
    'delete the note called "Kite building"',
  ])
  await part.getByTestId('approve').click()
  await expect.poll(() => part.getAttribute('data-state'), { timeout: 15_000 }).toBe('output-available')
  expect(await settled(page)).toMatch(/Deleted "Kite building"\.$/)
  expect(await page.getByTestId('delete-runs').textContent()).toBe('1')
  expect(await page.getByTestId('note').allTextContents()).not.toContain('Kite building')
  await page.close()
})

test('denying runs nothing and the model is told (output-denied, then its reply)', async () => {
  const page = await open()
  await send(page, 'delete the note called "Chess openings"')
  const part = page.locator('[data-testid="tool-part"][data-type="tool-notes.delete"]')
  await expect.poll(() => part.getAttribute('data-state'), { timeout: 15_000 }).toBe('approval-requested')
  await settled(page)
  await part.getByTestId('deny').click()
  await expect.poll(() => part.getAttribute('data-state'), { timeout: 15_000 }).toBe('output-denied')
  expect(await settled(page)).toMatch(
    /you rejected it \(Delete "Chess openings"\), so nothing was changed\.$/,
  )
  expect(await page.getByTestId('delete-runs').textContent()).toBe('0')
  expect(await page.getByTestId('note').allTextContents()).toContain('Chess openings')
  // The model is told: the conversation records the page's `cancelled operator` as the call's result.
  const told = await outcomes(page)
  expect(told).toHaveLength(1)
  expect(told[0]).toContain('"status":"cancelled","by":"operator"')
  await page.close()
})

test("an expired approval yields the seed's result, visible in the chat, and nothing runs", async () => {
  const page = await open('?confirmExpiryMs=1000')
  await send(page, 'delete the note called "Marathon training"')
  const part = page.locator('[data-testid="tool-part"][data-type="tool-notes.delete"]')
  await expect.poll(() => part.getAttribute('data-state'), { timeout: 15_000 }).toBe('approval-requested')
  await settled(page)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  await part.getByTestId('approve').click()
  await expect.poll(() => part.getAttribute('data-state'), { timeout: 15_000 }).toBe('output-error')
  expect(await part.getByTestId('tool-error').textContent()).toBe(
    'confirmation_expired: The confirmation expired or was already used',
  )
  // The follow-up turn acknowledges the expiry in the same assistant message.
  expect(await settled(page)).toMatch(
    /The confirmation expired or was already used \(Delete "Marathon training"\)/,
  )
  expect(await page.getByTestId('delete-runs').textContent()).toBe('0')
  await page.close()
})

/** The confirmation outcomes the conversation of `page` recorded for the model (tool results with a confirmId). */
async function outcomes(page: Page): Promise<string[]> {
  const id = (await page.locator('main').getAttribute('data-conversation')) ?? ''
  const stored = await server.server.store.listMessages(id)
  return stored.flatMap((m) => (m.agent?.role === 'tool' && m.agent.confirmId ? [m.agent.content] : []))
}
