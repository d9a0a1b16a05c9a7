import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig, type RunningServer, startServer } from '@toolmark-apps/agent-server'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { DemoPage } from './harness.ts'

/**
 * Shorter than the default 15 s so the test can wait past it, but longer than a reload: the reloaded
 * page must subscribe while the old stream's loop still sleeps (that loop ending later used to remove
 * the new page's listener).
 */
const KEEP_ALIVE_MS = 2_500

let browser: Browser
let server: RunningServer
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolmark-demo-stream-'))
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_FILE: join(dir, 'demo.db'),
    STATIC_DIR: inject('staticDir'),
    PROVIDER: 'embedded',
    SSE_KEEP_ALIVE_MS: String(KEEP_ALIVE_MS),
  })
  ;[browser, server] = await Promise.all([
    chromium.connect(inject('browserWSEndpoint')),
    startServer({ config, log: () => {} }),
  ])
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

test("after a reload and past the stream's keep-alive, the chat still streams the agent's answer", async () => {
  const demo = await DemoPage.open(browser, server.url)
  try {
    expect((await demo.ask('Search for chess')).join('\n')).toContain('I found 1 challenge: Chess Openings.')
    await demo.reload()
    await demo.page.waitForTimeout(KEEP_ALIVE_MS + 1_000) // the old stream's loop wakes up and ends meanwhile
    // The answer must arrive over the reloaded page's event stream (the page does not poll).
    expect((await demo.ask('Search for marathon')).join('\n')).toContain(
      'I found 1 challenge: Marathon Training.',
    )
  } finally {
    await demo.close()
  }
})
