import { newId } from '../ids.ts'
import type { ToolResult } from '../types.ts'

/**
 * The agent end of an in-page channel (`createInPageChannel().agent` from `@toolmark/bridge/in-page`):
 * what the test agent needs of it, so the core's testing kit does not depend on the bridge package.
 */
export interface TestAgentEnd {
  /** Deliver one agent→page message to the page's bridge. */
  send(message: unknown): void
  /** Receive page→agent messages. Returns an unsubscribe function. */
  onMessage(handler: (message: unknown) => void): () => void
}

/** What the in-page agent has seen: the page's tool list (from manifest messages) and outcomes. */
export interface TestAgentState {
  tools: readonly string[]
  /** Status of the last call's result. */
  lastResult: string
  /** Status of the last `confirmed` message (a deferred confirmation reached its end). */
  lastConfirmed: string
}

/** A tiny agent on the in-page end of the bridge protocol (the same messages a server sends). */
export interface TestAgent {
  call(tool: string, input: unknown): Promise<ToolResult>
  getState(): TestAgentState
  subscribe(listener: () => void): () => void
}

/** Drives the page's bridge like a remote agent would: calls as caller `inapp`, sees `confirmed`. */
export function createTestAgent(end: TestAgentEnd): TestAgent {
  let clientId = ''
  let rev = 0
  let state: TestAgentState = { tools: [], lastResult: '', lastConfirmed: '' }
  const waiting = new Map<string, (result: ToolResult) => void>()
  const listeners = new Set<() => void>()
  const update = (patch: Partial<TestAgentState>) => {
    state = { ...state, ...patch }
    for (const listener of [...listeners]) listener()
  }
  end.onMessage((raw) => {
    const message = raw as Record<string, unknown>
    if (message.type === 'manifest') {
      clientId = String(message.clientId)
      rev = Number(message.rev)
      update({ tools: (message.tools as Array<{ name: string }>).map((t) => t.name) })
    } else if (message.type === 'result') {
      const result = message.result as ToolResult
      update({ lastResult: result.status })
      waiting.get(String(message.id))?.(result)
      waiting.delete(String(message.id))
    } else if (message.type === 'confirmed') {
      update({ lastConfirmed: (message.result as ToolResult).status })
    }
  })
  return {
    call(tool, input) {
      const id = newId()
      return new Promise((resolve) => {
        waiting.set(id, resolve)
        end.send({ protocol: 1, type: 'call', clientId, id, rev, tool, input })
      })
    },
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
}
