// page.ts: the page's registry and bridge (plain bridge v1: nothing to add for AG-UI)

import { bridge } from '@toolmark/bridge'
import { httpTransport } from '@toolmark/bridge/http'
import { createToolmark, ok } from '@toolmark/core'

export function startPage(conversationId: string) {
  const tm = createToolmark()
  tm.register({
    name: 'challenges.create',
    description: 'Create a challenge with a name.',
    jsonSchema: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 } },
      required: ['name'],
    },
    hints: { consequential: true }, // the agent's call waits for the user's approval
    summary: (input) => `Create challenge "${(input as { name: string }).name}"`,
    run: (input) => ok({ created: (input as { name: string }).name }),
  })
  const transport = httpTransport({
    streamUrl: `/toolmark/events?conversation=${conversationId}`,
    postUrl: '/toolmark/messages',
  })
  tm.use(bridge({ transport }))
  return tm
}
