// The server of the abuse bench (abuse.ts), alone in this process so its memory and event loop are its own:
// `@toolmark/server` with the offline planner as its model and as `POST /v1/chat/completions`, an in-memory store,
// the demo's session cookie. Answers the parent's `url`, `stats`, `reset` and `close` requests over IPC.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createToolmarkServer } from '@toolmark/server'
import { serve } from '@toolmark/server/node'
import { OfflineProvider } from '@toolmark-apps/agent-server'

const toolmark = createToolmarkServer({
  provider: new OfflineProvider(),
  chatCompletions: new OfflineProvider(),
  log: () => {},
})
const node = await serve(toolmark, { port: 0, host: '127.0.0.1', log: () => {} })
const delay = monitorEventLoopDelay({ resolution: 1 })
delay.enable()
let peakRss = 0
const sample = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss)
}, 5)

process.on('message', async (message: { op: string }) => {
  if (message.op === 'url') process.send?.({ url: node.url })
  else if (message.op === 'reset') {
    delay.reset()
    peakRss = process.memoryUsage().rss
    process.send?.({})
  } else if (message.op === 'stats') {
    process.send?.({ loopMaxMs: delay.max / 1e6, loopP99Ms: delay.percentile(99) / 1e6, peakRss })
  } else if (message.op === 'close') {
    clearInterval(sample)
    await toolmark.close()
    await node.close()
    process.send?.({})
    process.exit(0)
  }
})
process.send?.({ ready: true })
