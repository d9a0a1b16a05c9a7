import type { RunResult, ToolContext } from '@toolmark/core'
import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it } from 'vitest'
import { bridge } from '../bridge.ts'
import type { BridgeTransport } from '../transport.ts'

const CLIENT = 'client-under-test'
const flush = () => new Promise((r) => setTimeout(r, 0))

/** A transport that records what it sends, with a close the test chooses. */
function recordingTransport(close: () => void | Promise<void>) {
  const sent: Array<{ type: string; id?: string }> = []
  let handler: ((message: unknown) => void) | undefined
  let closes = 0
  const transport: BridgeTransport = {
    send: (message) => void sent.push(message as { type: string }),
    onMessage(h) {
      handler = h
      return () => {
        handler = undefined
      }
    },
    close() {
      closes++
      return close()
    },
  }
  return { transport, sent, deliver: (m: unknown) => handler?.(m), closes: () => closes }
}

function setup(close: () => void | Promise<void> = () => {}) {
  const tm = createTestToolmark({ dev: false })
  const errors: Array<[string, string]> = []
  tm.events.on('error', (e) => errors.push([e.code, e.message]))
  const t = recordingTransport(close)
  const dispose = tm.use(bridge({ transport: t.transport, clientId: CLIENT }))
  return { tm, errors, dispose, ...t }
}

describe('bridge: teardown', () => {
  it('is idempotent: a second dispose closes nothing again', () => {
    const { dispose, closes } = setup()
    dispose()
    dispose()
    expect(closes()).toBe(1)
  })

  it('a close that throws or rejects is the error event transport_failed, never a throw', async () => {
    const throwing = setup(() => {
      throw new Error('boom')
    })
    expect(() => throwing.dispose()).not.toThrow()
    expect(throwing.errors).toEqual([['transport_failed', 'The transport failed to close']])

    const rejecting = setup(() => Promise.reject(new Error('boom')))
    rejecting.dispose()
    await flush()
    expect(rejecting.errors).toEqual([['transport_failed', 'close failed']])
  })

  it('after dispose nothing is sent: no manifest for a new revision, no result for the aborted call', async () => {
    const { tm, dispose, sent, deliver } = setup()
    tm.register({
      name: 'slow',
      description: 'd',
      hints: { readOnly: true },
      run: (_: unknown, ctx: ToolContext) =>
        new Promise<RunResult>((resolve) => ctx.signal.addEventListener('abort', () => resolve(ok()))),
    })
    deliver({ protocol: 1, clientId: CLIENT, type: 'call', id: 'x', tool: 'slow', input: {} })
    await flush()
    const before = sent.length
    dispose()
    tm.register({ name: 'later', description: 'd', hints: { readOnly: true }, run: () => ok() })
    deliver({ protocol: 1, clientId: CLIENT, type: 'describe', id: 'y', tool: 'slow' })
    await flush()
    await flush()
    expect(sent.length).toBe(before)
  })
})
