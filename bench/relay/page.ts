// The page every latency measurement talks to: the built demo, served by the agent server, opened in
// Chromium in its own browser context (a new session, user and conversation).
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import type { RunningServer } from '@toolmark-apps/agent-server'
import type { Browser } from 'playwright-core'
import { ROOT, TOOL, waitFor } from './shared.ts'

const DEMO_DIR = join(ROOT, 'apps/demo')

/** Newest modification time of the files under `dir` (tests and node_modules skipped). */
function newest(dir: string): number {
  if (!existsSync(dir)) return 0
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '__tests__' || entry.name === 'dist') continue
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

/**
 * The built demo: `apps/demo/dist` when it is newer than the demo's and the packages' sources, else a
 * fresh production build (Vite's `build()`, resolved from apps/demo) into a temp folder.
 */
export async function demoDist(work: string): Promise<{ dir: string; note: string }> {
  const dist = join(DEMO_DIR, 'dist')
  const index = join(dist, 'index.html')
  const packages = join(ROOT, 'packages')
  const sources = Math.max(
    newest(join(DEMO_DIR, 'src')),
    statSync(join(DEMO_DIR, 'index.html')).mtimeMs,
    ...readdirSync(packages).map((name) => newest(join(packages, name, 'src'))),
  )
  if (existsSync(index) && statSync(index).mtimeMs > sources)
    return { dir: dist, note: 'reused apps/demo/dist' }
  const vitePath = createRequire(join(DEMO_DIR, 'package.json')).resolve('vite')
  const { build } = (await import(pathToFileURL(vitePath).href)) as {
    build: (config: Record<string, unknown>) => Promise<unknown>
  }
  const outDir = join(work, 'dist')
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  const t0 = performance.now()
  try {
    await build({
      root: DEMO_DIR,
      configFile: join(DEMO_DIR, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    })
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
  }
  return { dir: outDir, note: `built the demo in ${Math.round(performance.now() - t0)} ms` }
}

/** One demo page load in its own browser context (a new session, user and conversation), bound on the server. */
export async function openDemo(browser: Browser, server: RunningServer, blockChat: boolean) {
  const context = await browser.newContext()
  // The chat's server-sent events: blocked, the page has no chat updates to render during a turn.
  if (blockChat) await context.route('**/api/conversations/*/events', (route) => route.abort())
  const page = await context.newPage()
  await page.goto(server.url)
  const conversationId = String(
    await (await page.waitForFunction(() => localStorage.getItem('toolmark-demo:conversation'))).jsonValue(),
  )
  const conversation = await server.store.getConversation(conversationId)
  if (!conversation) throw new Error('The server does not know the page’s conversation')
  const bound = await waitFor('the demo manifest', async () => {
    const bound = await server.relay.page(conversationId)
    return bound?.tools.some((t) => t.name === TOOL) ? bound : undefined
  })
  return { context, page, conversation, bound }
}

/** A demo page load, as {@link openDemo} returns it. */
export type Demo = Awaited<ReturnType<typeof openDemo>>
