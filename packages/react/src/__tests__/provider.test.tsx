import { render } from '@testing-library/react'
import { bridge } from '@toolmark/bridge'
import { createInPageChannel } from '@toolmark/bridge/in-page'
import { describe, expect, it, vi } from 'vitest'
import { NO_TOOLMARK, type ToolmarkConsumer, useTool, useToolmark } from '../index.ts'
import { describeEachReactMode, flush, setup } from './utils.tsx'

function Orphan() {
  useToolmark()
  return null
}

function SearchTool() {
  useTool({ name: 'search', description: 'Search', hints: { readOnly: true }, run: () => undefined })
  return null
}

function OrphanTool() {
  useTool({ name: 'x', description: 'x', hints: { readOnly: true }, run: () => undefined })
  return null
}

describe('useToolmark', () => {
  it('throws a clear error without a provider', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {})
    expect(() => render(<Orphan />)).toThrow(NO_TOOLMARK)
    expect(() => render(<OrphanTool />)).toThrow(NO_TOOLMARK)
    spy.mockRestore()
  })
})

let renders = 0
function Counted() {
  renders++
  return null
}

describeEachReactMode('ToolmarkProvider', ({ mode, render }) => {
  it('runs the suite in the named mode (StrictMode renders twice)', () => {
    renders = 0
    render(<Counted />)
    expect(renders).toBe(mode === 'strict' ? 2 : 1)
  })

  it('keeps a bridge over an in-page channel working: the agent sees the tool and calls it', async () => {
    const { wrap } = setup()
    const channel = createInPageChannel()
    const messages: Array<Record<string, unknown>> = []
    channel.agent.onMessage((m) => messages.push(m as Record<string, unknown>))
    const consumers = [bridge({ transport: channel.transport, clientId: 'page-1' })]
    const view = render(wrap(<SearchTool />, consumers))
    await flush()
    const manifests = messages.filter((m) => m.type === 'manifest')
    expect(manifests.at(-1)).toMatchObject({ tools: [{ name: 'search' }] })
    channel.agent.send({
      protocol: 1,
      type: 'call',
      clientId: 'page-1',
      id: 'call-1',
      tool: 'search',
      input: {},
    })
    await flush()
    await flush()
    expect(messages.filter((m) => m.type === 'result')).toEqual([
      { protocol: 1, type: 'result', clientId: 'page-1', id: 'call-1', result: { status: 'ok' } },
    ])
    view.unmount()
    await flush()
    expect(() => channel.transport.send({})).toThrow('closed')
  })

  it('attaches each consumer once while mounted and detaches it on unmount', async () => {
    const { wrap } = setup()
    let active = 0
    const attached = vi.fn()
    const consumer: ToolmarkConsumer = () => {
      active++
      attached()
      return () => {
        active--
      }
    }
    const view = render(wrap(null, [consumer]))
    await flush()
    expect(active).toBe(1)
    // Even under StrictMode's mount → unmount → mount the consumer is attached once, never closed in between.
    expect(attached).toHaveBeenCalledTimes(1)
    // A new array with the same consumers does not re-attach.
    const calls = attached.mock.calls.length
    view.rerender(wrap(null, [consumer]))
    await flush()
    expect(attached.mock.calls.length).toBe(calls)
    view.unmount()
    await flush()
    expect(active).toBe(0)
  })
})
