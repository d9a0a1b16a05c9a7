import type { ToolResult } from '@toolmark/core'
import type { InPageAgent } from '@toolmark/core/bridge/in-page'

/** What the in-page agent has seen: the page's tool list (from manifest messages) and outcomes. */
export interface AgentState {
  tools: readonly string[]
  /** Status of the last call's result. */
  lastResult: string
  /** Status of the last `confirmed` message (a deferred confirmation reached its end). */
  lastConfirmed: string
}

/** A tiny agent loop on the in-page end of the bridge protocol (the same messages a server sends). */
export interface Agent {
  call(tool: string, input: unknown): Promise<ToolResult>
  getState(): AgentState
  subscribe(listener: () => void): () => void
}

/** Drives the page's bridge like a remote agent would: calls as caller `inapp`, sees `confirmed`. */
export function createAgent(end: InPageAgent): Agent {
  let clientId = ''
  let rev = 0
  let state: AgentState = { tools: [], lastResult: '', lastConfirmed: '' }
  const waiting = new Map<string, (result: ToolResult) => void>()
  const listeners = new Set<() => void>()
  const update = (patch: Partial<AgentState>) => {
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
      const id = crypto.randomUUID()
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
