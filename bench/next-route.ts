// Route-change benchmark: how much Toolmark work a client navigation costs in the Next.js demo
// (apps/next-demo, production build, Chromium). Nothing here asserts; the goal is printed beside the
// figures. Run with `pnpm bench:next` (after `pnpm --filter @toolmark-apps/next-demo build`).
//
// The page's registry is instrumented in place: every call into a scope's `scope`, `register`,
// `dispose` and `setWhen`, the registry's `manifest`, and the bridge transport's POST is timed (outermost
// call only, so nested work is counted once). Each navigation clicks between /challenges (2 layout
// tools + 5 page tools) and /settings (2 + 1) and waits for the bridge's manifest with the new page's
// tools. Per navigation: Toolmark time = the timed calls (scope dispose + register + manifest + POST),
// and the whole route change (click → that manifest sent) measured in the page; the ratio is
// Toolmark's share of the route change.
import { chromium } from 'playwright-core'
import { startApp } from '../apps/next-demo/e2e/app.ts'

const NAVIGATIONS = 60
const WARMUP = 6
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

const app = await startApp()
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true })
try {
  const page = await browser.newPage()
  // tsx compiles this file with esbuild's keepNames: functions passed to the page call its `__name`.
  await page.addInitScript('window.__name = (fn) => fn')
  await page.goto(new URL('/challenges', app.url).href)
  await page.getByTestId('chat-input').waitFor()
  await page.waitForFunction(() => {
    const tm = (window as unknown as Record<symbol, { manifest(): { tools: unknown[] } }>)[
      Symbol.for('@toolmark/next.tab')
    ]
    return (tm?.manifest().tools.length ?? 0) >= 7
  })
  await page.evaluate(() => {
    type Timed = Record<string, (...args: unknown[]) => unknown>
    const w = window as unknown as Record<string, unknown> & Record<symbol, Timed>
    const tm = w[Symbol.for('@toolmark/next.tab')]!
    const stats = { ms: 0, depth: 0, sends: [] as Array<{ at: number; text: string }> }
    w.__bench = stats
    const time = (target: Timed, name: string): void => {
      const original = target[name]!
      target[name] = function (this: unknown, ...args: unknown[]) {
        if (stats.depth > 0) return original.apply(this, args)
        stats.depth += 1
        const t0 = performance.now()
        try {
          return original.apply(this, args)
        } finally {
          stats.ms += performance.now() - t0
          stats.depth -= 1
        }
      }
    }
    const probe = (tm.scope as (name: string) => Timed).call(tm, 'bench-probe')
    const scopeProto = Object.getPrototypeOf(probe) as Timed
    ;(probe.dispose as () => void).call(probe)
    for (const name of ['scope', 'register', 'dispose', 'setWhen']) time(scopeProto, name)
    time(tm, 'manifest')
    // The bridge's HTTP transport (the Next demo on `next start`) sends each message as a POST: the call
    // that hands it to the browser is timed, and its body kept (the response is the network's, not ours).
    const post = window.fetch
    window.fetch = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      const t0 = performance.now()
      try {
        return post.call(this, input, init)
      } finally {
        stats.ms += performance.now() - t0
        if (typeof init?.body === 'string' && String(input).includes('/toolmark/messages'))
          stats.sends.push({ at: performance.now(), text: init.body })
      }
    } as typeof window.fetch
  })

  const toolmark: number[] = []
  const total: number[] = []
  for (let i = 0; i < WARMUP + NAVIGATIONS; i++) {
    const target = i % 2 === 0 ? 'settings' : 'challenges'
    const expected = target === 'settings' ? 'settings.updateCard' : 'challenges.search'
    const figures = await page.evaluate(
      ([target, expected]) =>
        new Promise<{ toolmark: number; total: number }>((resolve, reject) => {
          const stats = (
            window as unknown as { __bench: { ms: number; sends: Array<{ at: number; text: string }> } }
          ).__bench
          stats.ms = 0
          stats.sends.length = 0
          const link = document.querySelector<HTMLAnchorElement>(`[data-testid="nav-${target}"]`)
          if (!link) return reject(new Error(`no link to ${target}`))
          const t0 = performance.now()
          link.click()
          const started = Date.now()
          const poll = (): void => {
            const sent = stats.sends.find(
              (s) => s.text.includes('"manifest"') && s.text.includes(`"${expected}"`),
            )
            if (sent) return resolve({ toolmark: stats.ms, total: sent.at - t0 })
            if (Date.now() - started > 10_000) return reject(new Error('no manifest within 10 s'))
            setTimeout(poll, 1)
          }
          poll()
        }),
      [target, expected] as const,
    )
    if (i >= WARMUP) {
      toolmark.push(figures.toolmark)
      total.push(figures.total)
    }
  }
  const median = quantile(toolmark, 0.5)
  const p95 = quantile(toolmark, 0.95)
  const routeMedian = quantile(total, 0.5)
  console.log(
    `Next.js route change (${NAVIGATIONS} navigations /challenges ⇄ /settings, production build, Chromium)`,
  )
  console.log(
    `  Toolmark work per route change: median ${median.toFixed(3)} ms, p95 ${p95.toFixed(3)} ms (goal ≤ 1 ms)`,
  )
  console.log(`  whole route change (click → new manifest sent): median ${routeMedian.toFixed(2)} ms`)
  console.log(`  Toolmark share of the route change: ${((100 * median) / routeMedian).toFixed(1)} %`)
  console.log('  (Chromium coarsens performance.now() to 0.1 ms on pages without cross-origin isolation)')
} finally {
  await browser.close()
  await app.close()
}
