// Relay benchmark: the reference agent server (apps/agent-server) relaying `page_call`s to the demo page in
// real Chromium over its WebSocket, and the server's memory per open conversation. Every figure is printed
// next to a floor measured in the same run, as a ratio. Nothing here asserts: goals are printed beside the
// figures. Run with `pnpm bench:relay` (or `pnpm bench` for every bench). One file per measurement:
//
// 1. Latency and throughput. The agent server runs in this process (127.0.0.1, port 0, SQLite in a temp
//    file) serving the built demo (relay/page.ts); Chromium opens it. Calls go (a) straight through
//    `Relay.request` (relay/request.ts), and (b) through the whole agent loop with a scripted provider
//    (relay/agent-loop.ts), once with the demo's chat live and once on a page load whose chat stream
//    (`/events`) is blocked. Floor: a raw `ws` round trip between this process and the same page, whose
//    tiny script echoes each frame. Overhead = ours − floor: the server's binding/validation/SQLite work
//    plus the page's bridge, registry and tool run.
// 2. Memory per open conversation (relay/memory.ts, with its child processes in relay/children.ts).
//
// relay/shared.ts holds the table, the timing helpers and the run settings.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { ToolManifestSummary } from '@toolmark/core'
import { AGENT_TURNS, agentRows, agentTurns, ScriptedProvider } from './relay/agent-loop.ts'
import { memory } from './relay/memory.ts'
import { demoDist, openDemo } from './relay/page.ts'
import { measureRequest, requestRows } from './relay/request.ts'
import { CHROMIUM_ARGS, CHROMIUM_PATH, HOST, print, QUERY, step, TOOL } from './relay/shared.ts'

/** Part 1. Returns the demo's manifest tools (part 2 sends them). */
async function latency(work: string): Promise<ToolManifestSummary[]> {
  const { loadConfig, startServer } = await import('@toolmark-apps/agent-server')
  const { chromium } = await import('playwright-core')
  step('demo assets')
  const dist = await demoDist(work)
  const provider = new ScriptedProvider()
  const config = loadConfig({
    PORT: '0',
    HOST,
    DATA_FILE: join(work, 'latency.db'),
    STATIC_DIR: dist.dir,
    PROVIDER: 'embedded',
    CALL_DEADLINE_MS: '10000',
  })
  const server = await startServer({ config, provider, log: () => {} })
  let rejected = 0
  server.relay.on('rejected', () => rejected++)
  step(`server at ${server.url}; launching Chromium`)
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
  })
  try {
    const demo = await openDemo(browser, server, false)
    const request = await measureRequest(server, demo)

    step('agent loop, demo chat live')
    const live = await agentTurns(server, provider, demo.conversation)
    await demo.context.close()
    step('agent loop, chat stream blocked')
    const quiet = await openDemo(browser, server, true)
    const blocked = await agentTurns(server, provider, quiet.conversation)
    await quiet.context.close()

    console.log(`Chromium ${browser.version()}; ${dist.note}; ${TOOL}({ query: '${QUERY}' })`)
    console.log(
      `floor = raw ws echo between this process and the same page (frames: call ${request.frameBytes} B; ` +
        `our result ${request.resultBytes} B); CPU = this process (server + Playwright client)`,
    )
    console.log(
      'agent turns: a scripted model (no LLM) calls page_call; timed from its tool call to the tool result it ' +
        'gets back. "chat live": the demo also renders the turn’s chat messages (server-sent events) while ' +
        'it answers; "chat stream blocked": a second page load whose /events requests are aborted',
    )
    requestRows(request)
    agentRows(`${AGENT_TURNS} turns, demo chat live`, live, request.floorSeq.sorted)
    agentRows(`${AGENT_TURNS} turns, chat stream blocked`, blocked, request.floorSeq.sorted)
    const agentFailures = live.failures + blocked.failures
    if (request.failures + agentFailures + rejected > 0)
      console.log(
        `note: ${request.failures} relay calls and ${agentFailures} agent calls did not return ok; ` +
          `${rejected} page messages rejected`,
      )
    return (await server.store.getManifest(demo.bound.clientId))?.tools ?? demo.bound.tools
  } finally {
    await browser.close()
    await server.close()
  }
}

async function main(): Promise<void> {
  console.log(`Node ${process.version}, ${new Date().toISOString()}, relay bench (loopback)`)
  const work = await mkdtemp(join(tmpdir(), 'toolmark-bench-relay-'))
  const started = performance.now()
  try {
    const tools = await latency(work)
    await memory(tools)
  } finally {
    print()
    console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`)
    await rm(work, { recursive: true, force: true })
  }
}

await main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
