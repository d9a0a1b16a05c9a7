import type { BrowserContextOptions } from 'playwright-core'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, inject } from 'vitest'
import { DemoPage } from './harness.ts'
import { type DemoServer, startDemoServer } from './server.ts'

/** What {@link withDemo} makes for a test file: filled in before its first test, closed after its last. */
export interface DemoSetup {
  /** The shared Chromium (global setup), connected for this file. */
  readonly browser: Browser
  /** The real agent server with the embedded agent, serving the built demo; its own SQLite file. */
  readonly server: DemoServer
  /** One tab on the demo's home page, opened once for the file's tests (each test starts it over as it needs). */
  readonly tab: DemoPage
}

/**
 * A test file's demo: connects the browser, starts the agent server and opens one tab (with `tab`'s options)
 * before the file's tests, and closes them all after. Call it once at the top of the file.
 */
export function withDemo(tab: BrowserContextOptions = {}): DemoSetup {
  const made: { browser?: Browser; server?: DemoServer; tab?: DemoPage } = {}
  beforeAll(async () => {
    ;[made.browser, made.server] = await Promise.all([
      chromium.connect(inject('browserWSEndpoint')),
      startDemoServer(inject('staticDir')),
    ])
    made.tab = await DemoPage.open(made.browser, made.server.url, '/', tab)
  })
  afterAll(async () => {
    await made.tab?.close()
    await made.browser?.close()
    await made.server?.close()
  })
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`withDemo: the ${what} is made before the file's first test`)
    return value
  }
  return {
    get browser() {
      return ready(made.browser, 'browser')
    },
    get server() {
      return ready(made.server, 'server')
    },
    get tab() {
      return ready(made.tab, 'tab')
    },
  }
}
