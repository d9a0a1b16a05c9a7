import { act, render } from '@testing-library/react'
import type { Toolmark, ToolmarkConsumer } from '@toolmark/core'
import { useToolmark } from '@toolmark/react'
import { StrictMode } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { ToolmarkProvider, tabToolmark } from '../index.ts'

let seen: Toolmark[] = []
function Grab(): null {
  seen.push(useToolmark())
  return null
}

/** A consumer that counts how often it is attached and detached. */
function counter() {
  const counts = { attached: 0, detached: 0 }
  const consumer: ToolmarkConsumer = () => {
    counts.attached += 1
    return () => {
      counts.detached += 1
    }
  }
  return { counts, consumer }
}

const flush = () => act(async () => {})

describe('ToolmarkProvider', () => {
  it('uses one registry per tab: remounts and a second provider get the same one', () => {
    seen = []
    const first = render(
      <ToolmarkProvider>
        <Grab />
      </ToolmarkProvider>,
    )
    first.unmount()
    render(
      <StrictMode>
        <ToolmarkProvider>
          <Grab />
        </ToolmarkProvider>
      </StrictMode>,
    )
    expect(new Set(seen).size).toBe(1)
    expect(seen[0]).toBe(tabToolmark())
  })

  it('runs connect once per tab under StrictMode and keeps its consumer attached once', async () => {
    const { counts, consumer } = counter()
    const connect = vi.fn(async () => [consumer])
    const view = render(
      <StrictMode>
        <ToolmarkProvider connect={connect}>
          <Grab />
        </ToolmarkProvider>
      </StrictMode>,
    )
    await flush()
    expect(connect).toHaveBeenCalledTimes(1)
    expect(connect).toHaveBeenCalledWith(tabToolmark())
    expect(counts).toEqual({ attached: 1, detached: 0 })
    // A remount within the same task (fast refresh) keeps the consumer attached: never detached.
    act(() => {
      view.unmount()
      render(
        <ToolmarkProvider connect={connect}>
          <Grab />
        </ToolmarkProvider>,
      )
    })
    await flush()
    expect(connect).toHaveBeenCalledTimes(1)
    expect(counts).toEqual({ attached: 1, detached: 0 })
  })

  it('after a real unmount the consumers are disposed, and the next mount connects again', async () => {
    const { counts, consumer } = counter()
    const connect = vi.fn(() => [consumer])
    const first = render(
      <ToolmarkProvider connect={connect}>
        <Grab />
      </ToolmarkProvider>,
    )
    await flush()
    first.unmount()
    await flush()
    expect(counts).toEqual({ attached: 1, detached: 1 })
    render(
      <ToolmarkProvider connect={connect}>
        <Grab />
      </ToolmarkProvider>,
    )
    await flush()
    expect(connect).toHaveBeenCalledTimes(2)
    expect(counts).toEqual({ attached: 2, detached: 1 })
  })

  it('reports a failing connect to onConnectError, without an unhandled rejection', async () => {
    const onConnectError = vi.fn()
    render(
      <ToolmarkProvider
        connect={() => Promise.reject(new Error('no conversation'))}
        onConnectError={onConnectError}
      >
        <Grab />
      </ToolmarkProvider>,
    )
    await flush()
    expect(onConnectError).toHaveBeenCalledWith(new Error('no conversation'))
  })

  it('a synchronous connect works too', async () => {
    const { counts, consumer } = counter()
    render(
      <ToolmarkProvider connect={() => [consumer]}>
        <Grab />
      </ToolmarkProvider>,
    )
    await flush()
    expect(counts).toEqual({ attached: 1, detached: 0 })
  })
})
