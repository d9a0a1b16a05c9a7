import {
  type ConsumerStatus,
  ok,
  type RunResult,
  type Toolmark,
  type ToolmarkErrorEvent,
} from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import * as z from 'zod'
import type { PageToRelay } from '../../protocol/messages.ts'
import { mcpPairing, type PairingStatus, RESUME_STORAGE_KEY } from '../index.ts'

/** Lets pending promise callbacks (a tool's run, its result) settle. */
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

/** A stand-in for the browser's WebSocket: the relay end is driven by the test (see packages/mcp for the real one). */
class FakeSocket {
  static last: FakeSocket | undefined
  readyState = 0
  readonly sent: PageToRelay[] = []
  closed: [number | undefined, string | undefined] | undefined
  readonly #listeners = new Map<string, Array<(e: unknown) => void>>()
  constructor(readonly url: string) {
    FakeSocket.last = this
  }
  addEventListener(type: string, fn: (e: unknown) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), fn])
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as PageToRelay)
  }
  close(code?: number, reason?: string): void {
    this.closed = [code, reason]
    this.readyState = 3
    this.#emit('close', { reason: reason ?? '' })
  }
  open(): void {
    this.readyState = 1
    this.#emit('open', {})
  }
  receive(message: unknown): void {
    this.#emit('message', { data: typeof message === 'string' ? message : JSON.stringify(message) })
  }
  #emit(type: string, e: unknown): void {
    for (const fn of this.#listeners.get(type) ?? []) fn(e)
  }
}

function memoryStorage(): Storage & { map: Map<string, string> } {
  const map = new Map<string, string>()
  return {
    map,
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
  } as Storage & { map: Map<string, string> }
}

/** The status `mcpPairing` published for inspectors, read as another consumer would. */
function published(tm: Toolmark): ConsumerStatus | undefined {
  let status: ConsumerStatus | undefined
  tm.use((host) => {
    status = host.statuses().mcp
    return undefined
  })()
  return status
}

function setup() {
  const tm = createTestToolmark({ dev: false, policy: { mcp: ['readOnly'] } })
  const errors: ToolmarkErrorEvent[] = []
  tm.events.on('error', (e) => errors.push(e))
  const statuses: PairingStatus[] = []
  const storage = memoryStorage()
  const attach = () =>
    tm.use(
      mcpPairing({
        url: 'ws://127.0.0.1:17333',
        storage,
        WebSocket: FakeSocket as unknown as new (url: string) => WebSocket,
        onStatus: (s) => statuses.push(s),
      }),
    )
  return { tm, errors, statuses, storage, attach }
}

describe('mcpPairing(): the page side', () => {
  it('accepts loopback relay URLs only', () => {
    for (const url of [
      'ws://evil.example:17333',
      'ws://127.0.0.1.evil.example',
      'http://127.0.0.1:1',
      'wss://10.0.0.1',
    ])
      expect(() => mcpPairing({ url })).toThrow(TypeError)
    for (const url of ['ws://127.0.0.1:17333', 'ws://localhost:1', 'wss://[::1]:2/relay'])
      expect(() => mcpPairing({ url })).not.toThrow()
  })

  it('says hello, shows the code, and publishes only after the relay confirmed the pairing', async () => {
    const { tm, statuses, storage, attach } = setup()
    tm.register({
      name: 'search',
      description: 'S',
      input: z.object({ q: z.string() }),
      hints: { readOnly: true },
      run: () => ok(),
    })
    tm.register({ name: 'wipe', description: 'W', hints: { destructive: true }, run: () => ok() })
    attach()
    const ws = FakeSocket.last!
    ws.open()
    expect(ws.sent).toEqual([{ type: 'hello', v: 1 }])
    ws.receive({ type: 'pairing', code: '1234-5678', expiresAt: 1 })
    expect(statuses.at(-1)).toEqual({ state: 'pairing', code: '1234-5678', expiresAt: 1 })
    // A call before the pairing is ignored.
    ws.receive({ type: 'call', id: 'early', tool: 'search', input: { q: 'x' } })
    await tick()
    expect(ws.sent).toHaveLength(1)

    // Inspectors (another consumer, such as the devtools) see the state and its expiry, not the code.
    expect(published(tm)).toEqual({ state: 'pairing', expiresAt: 1 })
    ws.receive({ type: 'paired', tab: 't1', resume: 'token-1' })
    expect(statuses.at(-1)).toEqual({ state: 'paired', tab: 't1' })
    expect(published(tm)).toEqual({ state: 'paired', tab: 't1' })
    expect(storage.map.get(RESUME_STORAGE_KEY)).toBe('token-1')
    const manifest = ws.sent[1] as Extract<PageToRelay, { type: 'manifest' }>
    expect(manifest.type).toBe('manifest')
    expect(manifest.tools.map((t) => t.name)).toEqual(['search']) // policy: mcp sees readOnly only
    expect(manifest.tools[0]!.inputSchema).toMatchObject({ required: ['q'] })

    tm.register({ name: 'find', description: 'F', hints: { readOnly: true }, run: () => ok() })
    await tick()
    expect((ws.sent.at(-1) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual([
      'find',
      'search',
    ])
  })

  it('runs calls as caller mcp, answers JSON-safe results, and a cancel aborts the tool', async () => {
    const { tm, attach } = setup()
    let aborted = false
    tm.register({ name: 'big', description: 'B', hints: { readOnly: true }, run: () => ok(1n) })
    tm.scope('s').register({
      name: 'wait',
      description: 'W',
      hints: { readOnly: true },
      run: (_i, ctx) =>
        new Promise<RunResult>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted = true
            resolve(ok('stopped'))
          }),
        ),
    })
    attach()
    const ws = FakeSocket.last!
    ws.open()
    ws.receive({ type: 'paired', tab: 't1' })
    ws.receive({ type: 'call', id: 'c1', tool: 'big', input: {} })
    ws.receive({ type: 'call', id: 'c2', tool: 's.wait', input: {}, meta: { traceparent: 'x' } })
    ws.receive({ type: 'call', id: 'c3', tool: 'nope', input: {}, rev: 0 })
    await tick()
    ws.receive({ type: 'cancel', id: 'c2' })
    await tick()
    const results = ws.sent.filter((m) => m.type === 'result') as Array<
      Extract<PageToRelay, { type: 'result' }>
    >
    expect(Object.fromEntries(results.map((r) => [r.id, r.result]))).toEqual({
      c1: { status: 'error', message: 'Result not serializable' },
      c2: { status: 'ok', data: 'stopped' },
      c3: { status: 'refused', code: 'unknown_tool', message: 'Unknown tool', rev: tm.rev },
    })
    expect(aborted).toBe(true)
  })

  it('drops malformed relay messages with invalid_message; a relay error forgets the resume token and closes', () => {
    const { errors, statuses, storage, attach } = setup()
    storage.map.set(RESUME_STORAGE_KEY, 'old')
    attach()
    const ws = FakeSocket.last!
    ws.open()
    expect(ws.sent).toEqual([{ type: 'hello', v: 1, resume: 'old' }])
    ws.receive('not json')
    ws.receive({ type: 'call', id: 1, tool: 'x' })
    ws.receive({ type: 'unknown' })
    expect(errors.map((e) => [e.code, e.message])).toEqual([
      ['invalid_message', 'The MCP relay sent a malformed message: not JSON'],
      [
        'invalid_message',
        'The MCP relay sent a malformed message: call: id must match ^[A-Za-z0-9_-]{1,256}$',
      ],
      ['invalid_message', 'The MCP relay sent a malformed message: unknown message type'],
    ])
    ws.receive({ type: 'error', message: 'The pairing code expired: pair again' })
    expect(statuses.at(-1)).toEqual({ state: 'closed', reason: 'The pairing code expired: pair again' })
    expect(storage.map.has(RESUME_STORAGE_KEY)).toBe(false)
  })

  it('drops a relay message the validator rejects, with its reason: the tool never runs, nothing is answered', async () => {
    const { tm, errors, attach } = setup()
    const runs: unknown[] = []
    tm.register({
      name: 'search',
      description: 'S',
      hints: { readOnly: true },
      run: (input) => {
        runs.push(input)
        return ok()
      },
    })
    attach()
    const ws = FakeSocket.last!
    ws.open()
    ws.receive({ type: 'paired', tab: 't1' })
    const sent = ws.sent.length
    ws.receive({ type: 'call', id: 'c1', tool: 'search', input: {}, run: 'now' }) // unknown top-level property
    ws.receive({ type: 'call', id: 'c2', tool: 'search', input: [] }) // input is not an object
    ws.receive(`{"type":"call","id":"c3","tool":"search","input":${'{"a":'.repeat(64)}1${'}'.repeat(64)}}`)
    await tick()
    expect(runs).toEqual([])
    expect(ws.sent).toHaveLength(sent)
    expect(errors.map((e) => e.message)).toEqual([
      'The MCP relay sent a malformed message: call: unknown property "run"',
      'The MCP relay sent a malformed message: call: input must be an object',
      'The MCP relay sent a malformed message: too deep',
    ])
    // A well-formed call after them still runs: the socket stays paired.
    ws.receive({ type: 'call', id: 'c4', tool: 'search', input: { q: 1 } })
    await tick()
    expect(runs).toEqual([{ q: 1 }])
  })

  it('in a page, keeps the resume token in memory and stores it only as the page hides', () => {
    const page = new EventTarget()
    vi.stubGlobal('addEventListener', page.addEventListener.bind(page))
    vi.stubGlobal('removeEventListener', page.removeEventListener.bind(page))
    onTestFinished(() => void vi.unstubAllGlobals())
    const { storage, attach } = setup()
    storage.map.set(RESUME_STORAGE_KEY, 'old')
    attach()
    const ws = FakeSocket.last!
    ws.open()
    expect(ws.sent).toEqual([{ type: 'hello', v: 1, resume: 'old' }])
    // Taken out as soon as it is read: a window this page opens (a copy of sessionStorage) gets none.
    expect(storage.map.has(RESUME_STORAGE_KEY)).toBe(false)
    ws.receive({ type: 'paired', tab: 't1', resume: 'new' })
    expect(storage.map.has(RESUME_STORAGE_KEY)).toBe(false)
    page.dispatchEvent(new Event('pagehide')) // a reload: the next page load reads it
    expect(storage.map.get(RESUME_STORAGE_KEY)).toBe('new')
    // Back from the back/forward cache, the page keeps it to itself again.
    page.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }))
    expect(storage.map.has(RESUME_STORAGE_KEY)).toBe(false)
  })

  it('in a page, a token the relay answered with a new code is not handed on', () => {
    const page = new EventTarget()
    vi.stubGlobal('addEventListener', page.addEventListener.bind(page))
    vi.stubGlobal('removeEventListener', page.removeEventListener.bind(page))
    onTestFinished(() => void vi.unstubAllGlobals())
    const { storage, attach } = setup()
    storage.map.set(RESUME_STORAGE_KEY, 'copied')
    attach()
    const ws = FakeSocket.last!
    ws.open()
    ws.receive({ type: 'pairing', code: '1234-5678', expiresAt: 1 })
    page.dispatchEvent(new Event('pagehide'))
    expect(storage.map.has(RESUME_STORAGE_KEY)).toBe(false)
  })

  it('disposal closes the socket and cancels running calls', async () => {
    const { tm, statuses, attach } = setup()
    let aborted = false
    tm.register({
      name: 'wait',
      description: 'W',
      hints: { readOnly: true },
      run: (_i, ctx) =>
        new Promise<RunResult>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted = true
            resolve(ok())
          }),
        ),
    })
    const detach = attach()
    const ws = FakeSocket.last!
    ws.open()
    ws.receive({ type: 'paired', tab: 't1' })
    ws.receive({ type: 'call', id: 'c1', tool: 'wait', input: {} })
    await tick()
    detach()
    expect(ws.closed).toEqual([1000, 'disposed'])
    expect(aborted).toBe(true)
    expect(statuses.at(-1)).toEqual({ state: 'closed', reason: 'disposed' })
    expect(published(tm)).toBeUndefined()
  })
})
