// The server of the HTTP transport bench's memory part (http-transport.ts), alone in this process and on the
// built packages (plain `node --expose-gc`, no TypeScript loader), so RSS is the server's own. Answers the
// parent's `url`, `measure`, `bound` and `close` requests over IPC.
import { setTimeout as sleep } from 'node:timers/promises'
import { createToolmarkServer } from '@toolmark/server'
import { serve } from '@toolmark/server/node'

const toolmark = createToolmarkServer({
  provider: { name: 'none', async *stream() {} },
  authenticate: () => 'bench-user',
  // One bench user holds every page: the per-user cap (a guard against one user's abuse) is lifted to the load.
  maxPageConnectionsPerUser: 10_000,
  log: () => {},
})
const node = await serve(toolmark, { port: 0, host: '127.0.0.1', log: () => {} })
let bound = 0
toolmark.relay.on('rebound', () => bound++)

process.on('message', async (message) => {
  if (message.op === 'url') process.send({ url: node.url })
  else if (message.op === 'bound') process.send({ bound })
  else if (message.op === 'measure') {
    for (let i = 0; i < 3; i++) {
      globalThis.gc?.()
      await sleep(50)
    }
    const { rss, heapUsed, external } = process.memoryUsage()
    process.send({ rss, heap: heapUsed + external })
  } else if (message.op === 'close') {
    toolmark.dropBridgeStreams()
    await toolmark.close()
    await node.close()
    process.send({})
  }
})
