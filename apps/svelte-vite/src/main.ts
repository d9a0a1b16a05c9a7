import { bridge } from '@toolmark/bridge'
import { createInPageChannel } from '@toolmark/bridge/in-page'
import { createConfirmQueue, createToolmark } from '@toolmark/core'
import { createTestAgent as createAgent } from '@toolmark/core/testing'
import { mount } from 'svelte'
import App from './App.svelte'

// Inline confirmations (WebMCP, MCP, tours) go to a queue the page renders; inapp ones are deferred.
const queue = createConfirmQueue()
const tm = createToolmark({ dev: import.meta.env.DEV, confirm: queue.handler })
const channel = createInPageChannel()
const agent = createAgent(channel.agent)
// Created once per page: the provider attaches it for its lifetime.
const consumers = [bridge({ transport: channel.transport })]

// Every error event (duplicate_name, invalid_scope, ..., and development warnings) is recorded
// for the end-to-end checks.
const errors: string[] = []
tm.events.on('error', (event) => errors.push(`${event.code}: ${event.message}`))
Object.assign(window, { toolmark: { tm, agent, errors } })

mount(App, { target: document.getElementById('app') as HTMLElement, props: { tm, consumers, agent, queue } })
