import { bridge } from '@toolmark/bridge'
import { createInPageChannel } from '@toolmark/bridge/in-page'
import { createConfirmQueue, createToolmark } from '@toolmark/core'
import { createTestAgent as createAgent } from '@toolmark/core/testing'
import { ToolmarkPlugin } from '@toolmark/vue'
import { createApp } from 'vue'
import App from './App.vue'

// Inline confirmations (WebMCP, MCP, tours) go to a queue the page renders; inapp ones are deferred.
const queue = createConfirmQueue()
const tm = createToolmark({ dev: import.meta.env.DEV, confirm: queue.handler })
const channel = createInPageChannel()
const agent = createAgent(channel.agent)

// Every error event (duplicate_name, invalid_scope, ..., and development warnings) is recorded
// for the end-to-end checks.
const errors: string[] = []
tm.events.on('error', (event) => errors.push(`${event.code}: ${event.message}`))
Object.assign(window, { toolmark: { tm, agent, errors } })

createApp(App, { agent, queue })
  .use(ToolmarkPlugin, { toolmark: tm, consumers: [bridge({ transport: channel.transport })] })
  .mount('#app')
