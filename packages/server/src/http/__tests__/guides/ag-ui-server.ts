// server.ts: the Toolmark server with an AG-UI endpoint at /api/ag-ui (run: npx tsx server.ts)

import { OfflineProvider } from '@toolmark/offline-agent'
import { createToolmarkServer } from '@toolmark/server'
import { agUiHandler } from '@toolmark/server/ag-ui'
import { serve } from '@toolmark/server/node'

const toolmark = createToolmarkServer({
  provider: new OfflineProvider(), // or AnthropicProvider, OpenAiProvider, aiSdkProvider(...)
  authenticate: (request) => request.headers.get('x-user-id') ?? undefined, // your sign-in
})
const agUi = agUiHandler(toolmark)
const server = await serve(
  // The endpoint beside the chat API and the bridge's transports, on the same users and origins.
  { ...toolmark, fetch: (r) => (new URL(r.url).pathname === '/api/ag-ui' ? agUi(r) : toolmark.fetch(r)) },
  { port: 8787 },
)
// biome-ignore lint/suspicious/noConsole: the example says where it listens
console.log(`AG-UI endpoint on ${server.url}/api/ag-ui`)
