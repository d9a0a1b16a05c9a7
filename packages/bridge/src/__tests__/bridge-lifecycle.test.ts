/**
 * Transport failures and disposal of the bridge.
 */

import type { RunResult, ToolContext } from '@toolmark/core'
import { createToolmark, ok } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { createTestToolmark } from '@toolmark/core/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bridge } from '../bridge.ts'
import { createInPageChannel } from '../in-page.ts'
import { CLIENT, type Msg, readTool, tick } from './helpers.ts'

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('transport failures and disposal', () => {
  it('a synchronously throwing send is transport_failed; the bridge keeps working', async () => {
    const tm = createTestToolmark({ dev: false })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    let handler: (m: unknown) => void = () => {}
    const sent: Msg[] = []
    let failNext = true
    tm.use(
      bridge({
        clientId: CLIENT,
        transport: {
          send: (m) => {
            if (failNext) {
              failNext = false
              throw new Error('socket closed')
            }
            sent.push(m as Msg)
          },
          onMessage: (h) => {
            handler = h
            return () => {}
          },
        },
      }),
    )
    expect(errors).toEqual(['transport_failed'])
    readTool(tm)
    handler({ protocol: 1, clientId: CLIENT, type: 'call', id: 'x', tool: 'search', input: { query: 'q' } })
    await tick()
    expect(sent.find((m) => m.type === 'result')).toMatchObject({ id: 'x', result: { status: 'ok' } })
  })

  it('dispose: unsubscribes, aborts in-flight calls without answering them afterwards, closes the transport once', async () => {
    const tm = createTestToolmark({ dev: false })
    const { transport, agent } = createInPageChannel()
    const close = vi.spyOn(transport, 'close')
    const sent: Msg[] = []
    const send = vi.spyOn(transport, 'send')
    agent.onMessage((m) => sent.push(m as Msg))
    let aborted = false
    tm.register({
      name: 'slow',
      description: 'd',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted = true
            resolve(ok())
          }),
        ),
    })
    const dispose = tm.use(bridge({ transport, clientId: CLIENT }))
    agent.send({ protocol: 1, clientId: CLIENT, type: 'call', id: 'x', tool: 'slow', input: {} })
    await tick()
    const before = send.mock.calls.length
    dispose()
    dispose()
    await tick()
    tm.register({ name: 'later', description: 'd', hints: { readOnly: true }, run: () => ok() })
    await tick()
    expect(aborted).toBe(true)
    expect(close).toHaveBeenCalledTimes(1)
    expect(send.mock.calls.length).toBe(before)
  })

  it('SSR: on the server tm.use(bridge) is inert (no manifest, no subscription)', async () => {
    environment.setIsServer(true)
    const tm = createToolmark()
    const onMessage = vi.fn(() => () => {})
    const send = vi.fn()
    tm.use(bridge({ clientId: CLIENT, transport: { send, onMessage } }))
    await tick()
    expect(send).not.toHaveBeenCalled()
    expect(onMessage).not.toHaveBeenCalled()
  })
})
