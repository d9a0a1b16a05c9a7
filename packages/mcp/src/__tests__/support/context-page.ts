// The app side of the resources and prompts test: a registry with readable context (one entry masked,
// one in a scope), a read-only tool, and mcpPairing() with prompts.
import { type ContextHandle, createToolmark, ok, type Scope } from '@toolmark/core'
import { mcpPairing, type PairingStatus } from '@toolmark/mcp/page'

const tm = createToolmark()
let status: PairingStatus = { state: 'connecting' }

tm.register({
  name: 'ping',
  description: 'Answers pong.',
  hints: { readOnly: true },
  run: () => ok('pong'),
})
const user = tm.context({
  name: 'user',
  title: 'Signed-in user',
  description: 'Who is using the page.',
  value: { name: 'Ada', apiKey: 'sk-live-1234' },
  sensitivePaths: ['apiKey'],
})
let orders: Scope | undefined = tm.scope('orders')
let order: ContextHandle | undefined = orders.context({
  name: 'current',
  description: 'The order on screen.',
  value: { id: 7, total: 42 },
})

const relay = new URLSearchParams(location.search).get('relay') ?? ''
tm.use(
  mcpPairing({
    url: relay,
    onStatus: (s) => {
      status = s
    },
    prompts: [
      {
        name: 'summarize',
        title: 'Summarize the order',
        description: 'A summary of the order on screen.',
        arguments: [
          { name: 'tone', description: 'friendly or formal', required: true },
          { name: 'extra', description: 'Anything to add' },
        ],
        text: 'In a {{tone}} tone, summarize order {{context.orders.current}} for {{context.user}}.{{extra}}',
      },
    ],
  }),
)

Object.assign(window, {
  app: {
    status: () => status,
    setOrder: (value: unknown) => order?.set(value),
    setUser: (value: unknown) => user.set(value),
    closeOrders: () => {
      orders?.dispose()
      orders = undefined
      order = undefined
    },
  },
})
