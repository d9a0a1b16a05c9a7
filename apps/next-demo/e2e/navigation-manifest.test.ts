import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { DemoPage } from '../../demo/e2e/harness.ts'
import { type AppVariant, type RunningApp, startApp } from './app.ts'
import { CACHE_DIST_DIR } from './global-setup.ts'
import { APP_TOOLS, CHALLENGES_TOOLS, manifests, SETTINGS_TOOLS } from './tools.ts'

/** Page loads, and link navigations after each (20 in all; the first after a load is the riskiest). */
const LOADS = 4
const NAVIGATIONS_PER_LOAD = 5
/** Chromium runs the page this many times slower (CDP), as on a busy machine or a slow phone. */
const CPU_SLOWDOWN = 4

const PAGES = {
  settings: { tool: 'settings.updateCard', tools: [...APP_TOOLS, ...SETTINGS_TOOLS].sort() },
  challenges: { tool: 'challenges.search', tools: [...APP_TOOLS, ...CHALLENGES_TOOLS].sort() },
}

describe.each<[string, AppVariant]>([
  ['production build', {}],
  ['Cache Components', { cacheComponentsDir: CACHE_DIST_DIR }],
])('%s under CPU load', (_name, variant) => {
  let browser: Browser
  let app: RunningApp

  beforeAll(async () => {
    ;[browser, app] = await Promise.all([chromium.connect(inject('browserWSEndpoint')), startApp(variant)])
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  test("each link navigation sends one manifest, with the new page's tools (never the layout's alone)", {
    timeout: 240_000,
  }, async () => {
    const perNavigation: Array<{ to: string; manifests: string[][] }> = []
    for (let load = 0; load < LOADS; load++) {
      const demo = await DemoPage.open(browser, app.url, '/challenges')
      // The load's last manifest, with every tool of the page, is on the wire before the first click: the
      // manifests a navigation sends are counted from there (a load may send the attach manifest first, before
      // the page's effects have registered all of its tools).
      const loaded = PAGES.challenges.tools.join()
      await demo.waitForFrame(
        ({ direction, message }) =>
          direction === 'sent' &&
          message.type === 'manifest' &&
          (message.tools as Array<{ name: string }>)
            .map((t) => t.name)
            .sort()
            .join() === loaded,
        10_000,
      )
      const cdp = await demo.context.newCDPSession(demo.page)
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN })
      for (let i = 0; i < NAVIGATIONS_PER_LOAD; i++) {
        const to = i % 2 === 0 ? 'settings' : 'challenges'
        const from = demo.frames.length
        await demo.page.getByTestId(`nav-${to}`).click()
        await demo.waitForTool(PAGES[to].tool, from)
        // Every manifest from the click up to the first one with the new page's tools.
        const sent = manifests(demo.frames, from)
        const arrived = sent.findIndex((m) => m.names.includes(PAGES[to].tool))
        perNavigation.push({ to, manifests: sent.slice(0, arrived + 1).map((m) => m.names) })
      }
      await demo.close()
    }
    expect(perNavigation).toHaveLength(LOADS * NAVIGATIONS_PER_LOAD)
    expect(perNavigation).toEqual(
      perNavigation.map(({ to }) => ({ to, manifests: [PAGES[to as keyof typeof PAGES].tools] })),
    )
  })
})
