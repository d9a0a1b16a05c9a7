import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { tick } from '../../__tests__/helpers.ts'
import { environment } from '../../env.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import { createToolmark } from '../../toolmark.ts'
import type {
  ConfirmRequest,
  ConsumerStatus,
  Toolmark,
  ToolmarkErrorEvent,
  ToolmarkOptions,
} from '../../types.ts'
import { type ModelContextLike, type WebMcpTool, webmcp } from '../index.ts'
import { FakeModelContext } from './fake-model-context.ts'

const search = {
  name: 'search',
  title: 'Search',
  description: 'Search challenges by keyword.',
  input: z.object({ query: z.string().min(1) }),
  hints: { readOnly: true, untrustedContent: true },
  run: ({ query }: { query: string }) => ok({ query }),
}
const create = {
  name: 'create',
  description: 'Create a challenge.',
  input: z.object({ name: z.string() }),
  hints: { consequential: true },
  run: ({ name }: { name: string }) => ok({ id: 1, name }),
}
const wipe = { name: 'wipe', description: 'Delete all.', hints: { destructive: true }, run: () => ok() }

function setup(options: ToolmarkOptions = {}) {
  const mc = new FakeModelContext()
  const tm = createTestToolmark({ dev: false, ...options })
  const errors: ToolmarkErrorEvent[] = []
  tm.events.on('error', (e) => errors.push(e))
  return { mc, tm, errors }
}

/** The status `webmcp()` published for inspectors (read as another consumer would). */
function statusOf(tm: Toolmark): ConsumerStatus | undefined {
  let status: ConsumerStatus | undefined
  tm.use((host) => {
    status = host.statuses().webmcp
    return undefined
  })()
  return status
}

afterEach(() => {
  vi.unstubAllGlobals()
  environment.setIsServer(undefined)
})

describe('webmcp(): publishing', () => {
  it('publishes the tools visible to caller webmcp, with title, schema and mapped annotations', async () => {
    const { mc, tm } = setup({ policy: { webmcp: ['readOnly', 'consequential'] } })
    tm.register(search)
    tm.register(create)
    tm.register(wipe) // destructive is not allowed for webmcp by this policy
    tm.use(webmcp({ modelContext: mc, debugging: (t) => t.name === 'search' }))
    expect([...mc.tools.keys()]).toEqual(['create', 'search'])
    const s = mc.tools.get('search')!
    expect(s).toMatchObject({
      name: 'search',
      title: 'Search',
      description: 'Search challenges by keyword.',
      inputSchema: { type: 'object', properties: { query: { type: 'string', minLength: 1 } } },
      annotations: {
        readOnlyHint: true,
        untrustedContentHint: true,
        consequentialHint: false,
        debugging: true,
      },
    })
    expect(mc.tools.get('create')!.annotations).toEqual({
      readOnlyHint: false,
      untrustedContentHint: false,
      consequentialHint: true,
      debugging: false,
    })
    expect('title' in mc.tools.get('create')!).toBe(false)
  })

  it('leaves out a tool whose callers do not include webmcp, and follows a change of registration', async () => {
    const { mc, tm } = setup()
    tm.register(search)
    const desk = tm.register({ ...search, name: 'desk', callers: ['mcp'] })
    tm.register({ ...search, name: 'agents', callers: ['webmcp', 'inapp'] })
    tm.use(webmcp({ modelContext: mc }))
    expect([...mc.tools.keys()].sort()).toEqual(['agents', 'search'])
    desk.dispose()
    tm.register({ ...search, name: 'desk', callers: ['webmcp'] })
    await tick()
    expect([...mc.tools.keys()].sort()).toEqual(['agents', 'desk', 'search'])
  })

  it('maps destructive to consequentialHint and passes exposedTo', () => {
    const mc = new FakeModelContext()
    const spy = vi.spyOn(mc, 'registerTool')
    const tm = createTestToolmark()
    tm.register(wipe)
    tm.use(webmcp({ modelContext: mc, exposedTo: ['https://agent.example'] }))
    expect(mc.tools.get('wipe')!.annotations.consequentialHint).toBe(true)
    expect(spy.mock.calls[0]![1]).toMatchObject({ exposedTo: ['https://agent.example'] })
    expect(spy.mock.calls[0]![1]!.signal).toBeInstanceOf(AbortSignal)
  })

  it('syncs every revision and re-registers only what changed', async () => {
    const { mc, tm } = setup()
    tm.register(search)
    const scope = tm.scope('modal', { when: true })
    scope.register({ ...search, name: 'find' })
    let v1 = tm.register(create)
    tm.use(webmcp({ modelContext: mc }))
    await tick()
    expect(mc.registerCalls).toBe(3)

    // Added: one register, nothing else touched.
    const added = tm.register({ ...search, name: 'list' })
    await tick()
    expect([mc.registerCalls, mc.aborts]).toEqual([4, 0])

    // Re-registered with the same declaration (HMR, a remount): nothing on the browser side.
    v1.dispose()
    v1 = tm.register(create)
    await tick()
    expect([mc.registerCalls, mc.aborts]).toEqual([4, 0])

    // Re-registered with another schema: one abort and one register.
    v1.dispose()
    v1 = tm.register({ ...create, input: z.object({ name: z.string(), size: z.number() }) })
    await tick()
    expect([mc.registerCalls, mc.aborts]).toEqual([5, 1])
    expect(mc.tools.get('create')!.inputSchema).toMatchObject({ required: ['name', 'size'] })

    // Removed, then a `when` scope toggled off and on.
    added.dispose()
    await tick()
    expect(mc.tools.has('list')).toBe(false)
    scope.setWhen(false)
    await tick()
    expect([...mc.tools.keys()].sort()).toEqual(['create', 'search'])
    scope.setWhen(true)
    await tick()
    expect(mc.tools.has('modal.find')).toBe(true)
  })

  it('disposal unregisters everything; the same consumer attached twice publishes once', async () => {
    const { mc, tm } = setup()
    tm.register(search)
    const consumer = webmcp({ modelContext: mc })
    const a = tm.use(consumer)
    const b = tm.use(webmcp({ modelContext: mc })) // a second webmcp() on the same registry
    expect(mc.registerCalls).toBe(1)
    a()
    expect(mc.tools.size).toBe(1)
    b()
    expect(mc.tools.size).toBe(0)
    // StrictMode / HMR: attach, detach, attach again.
    tm.use(consumer)()
    tm.use(consumer)
    await tick()
    expect([...mc.tools.keys()]).toEqual(['search'])
  })
})

describe('webmcp(): execute', () => {
  it('validates, returns every outcome as a JSON value and never rejects', async () => {
    const { mc, tm } = setup()
    tm.register(search)
    tm.register({
      name: 'boom',
      description: 'Throws.',
      hints: { readOnly: true },
      run: () => {
        throw new Error('secret detail')
      },
    })
    tm.use(webmcp({ modelContext: mc }))
    const signal = new AbortController().signal
    expect(await mc.execute('search', { query: 'robots' }, { signal })).toEqual(ok({ query: 'robots' }))
    expect(await mc.execute('search', { query: '' }, { signal })).toMatchObject({
      status: 'invalid',
      issues: [{ path: 'query' }],
    })
    // The MCP-B polyfill passes no options; older clients send a JSON string.
    expect(await mc.execute('search', JSON.stringify({ query: 'q' }))).toEqual(ok({ query: 'q' }))
    expect(await mc.execute('search', 'not json')).toMatchObject({ status: 'invalid' })
    expect(await mc.execute('search', undefined)).toMatchObject({ status: 'invalid' })
    expect(await mc.execute('boom', {})).toEqual({ status: 'error', message: 'Tool failed' })
  })

  it('a result JSON cannot carry becomes an error result and a transport_failed event', async () => {
    const { mc, tm, errors } = setup()
    tm.register({ name: 'big', description: 'BigInt.', hints: { readOnly: true }, run: () => ok(1n) })
    tm.register({ name: 'date', description: 'Date.', hints: { readOnly: true }, run: () => ok(new Date(0)) })
    tm.use(webmcp({ modelContext: mc }))
    expect(await mc.execute('big', {})).toEqual({ status: 'error', message: 'Result not serializable' })
    expect(errors.map((e) => [e.code, e.tool])).toEqual([['transport_failed', 'big']])
    expect(await mc.execute('date', {})).toEqual(ok('1970-01-01T00:00:00.000Z'))
  })

  it('the caller’s signal cancels the call', async () => {
    const { mc, tm } = setup({ abortGraceMs: 10 })
    tm.register({
      name: 'slow',
      description: 'Waits.',
      hints: { readOnly: true },
      run: () => new Promise<never>(() => {}),
    })
    tm.use(webmcp({ modelContext: mc }))
    const ctrl = new AbortController()
    const pending = mc.execute('slow', {}, { signal: ctrl.signal })
    ctrl.abort()
    expect(await pending).toEqual({ status: 'cancelled', by: 'signal' })
  })

  it('a consequential call waits for the app’s inline confirmation and is refused when the user rejects', async () => {
    const asked: ConfirmRequest[] = []
    let answer: (approved: boolean) => void = () => {}
    const { mc, tm } = setup({
      confirm: (request) => {
        asked.push(request)
        return new Promise((resolve) => {
          answer = (approved) => resolve(approved ? { approved: true } : { approved: false })
        })
      },
    })
    const run = vi.fn(({ name }: { name: string }) => ok({ id: 1, name }))
    tm.register({ ...create, run })
    tm.use(webmcp({ modelContext: mc }))
    const first = mc.execute('create', { name: 'Robots' })
    await tick()
    expect(asked.map((r) => [r.caller, r.tool, r.kind])).toEqual([['webmcp', 'create', 'call']])
    expect(run).not.toHaveBeenCalled()
    answer(false)
    expect(await first).toEqual({ status: 'cancelled', by: 'operator' })
    expect(run).not.toHaveBeenCalled()
    const second = mc.execute('create', { name: 'Robots' })
    await tick()
    answer(true)
    expect(await second).toEqual(ok({ id: 1, name: 'Robots' }))
  })

  it('without a confirm handler consequential tools are not published at all', () => {
    const mc = new FakeModelContext()
    const tm = createToolmark({ live: true }) // a registry without a confirm handler
    tm.register(search)
    tm.register(create)
    tm.use(webmcp({ modelContext: mc }))
    expect([...mc.tools.keys()]).toEqual(['search'])
  })
})

describe('webmcp(): what real pages do', () => {
  it('a name the page already took is an error event; the other tools are still published', async () => {
    const { mc, tm, errors } = setup()
    await mc.registerTool({ name: 'search', description: 'The page’s own' } as WebMcpTool)
    tm.register(search)
    tm.register(create)
    tm.use(webmcp({ modelContext: mc }))
    await tick()
    expect(mc.tools.get('search')!.description).toBe('The page’s own')
    expect(mc.tools.has('create')).toBe(true)
    expect(errors.map((e) => [e.code, e.tool])).toEqual([['duplicate_name', 'search']])
    // An unrelated revision does not retry (and report) the refused name again.
    tm.register({ ...search, name: 'other' })
    await tick()
    expect(errors).toHaveLength(1)
    // Inspectors read what is published and what was refused as a duplicate; disposal withdraws it.
    expect(statusOf(tm)).toEqual({ state: 'published', tools: ['create', 'other'], duplicates: ['search'] })
  })

  it('its status says when the document does not allow WebMCP, and is gone after disposal', async () => {
    const { mc, tm } = setup()
    mc.denied = true
    tm.register(search)
    const dispose = tm.use(webmcp({ modelContext: mc }))
    await tick()
    expect(statusOf(tm)).toEqual({ state: 'not_allowed', tools: [], duplicates: [] })
    dispose()
    expect(statusOf(tm)).toBeUndefined()
  })

  it('Permissions-Policy tools=() is one error event, no unhandled rejection, nothing published', async () => {
    const { mc, tm, errors } = setup()
    mc.denied = true
    const unhandled = vi.fn()
    process.on('unhandledRejection', unhandled)
    tm.register(search)
    tm.register(create)
    tm.use(webmcp({ modelContext: mc }))
    await tick()
    tm.register({ ...search, name: 'later' })
    await tick()
    process.off('unhandledRejection', unhandled)
    expect(unhandled).not.toHaveBeenCalled()
    expect(errors.map((e) => e.code)).toEqual(['transport_failed'])
    expect(errors[0]!.message).toContain('Permissions-Policy')
    expect(mc.registerCalls).toBe(2)
  })

  it('a polyfill with a synchronous { unregister } return and no execute options works', () => {
    const tools = new Map<string, WebMcpTool>()
    const polyfill: ModelContextLike = {
      registerTool(tool) {
        tools.set(tool.name, tool)
        return { unregister: () => tools.delete(tool.name) }
      },
    }
    const tm = createTestToolmark()
    tm.register(search)
    const detach = tm.use(webmcp({ modelContext: polyfill }))
    expect(tools.has('search')).toBe(true)
    detach()
    expect(tools.size).toBe(0)
  })

  it('a registerTool that throws synchronously is reported, not thrown', () => {
    const { tm, errors } = setup()
    tm.register(search)
    const throwing: ModelContextLike = {
      registerTool() {
        throw new TypeError('bad schema')
      },
    }
    expect(() => tm.use(webmcp({ modelContext: throwing }))).not.toThrow()
    expect(errors.map((e) => [e.code, e.tool])).toEqual([['transport_failed', 'search']])
  })

  it('finds document.modelContext, falls back to navigator.modelContext, and is inert without either', () => {
    const tm = createTestToolmark()
    tm.register(search)
    const onDoc = new FakeModelContext()
    const onNav = new FakeModelContext()
    vi.stubGlobal('navigator', { modelContext: onNav })
    vi.stubGlobal('document', { modelContext: onDoc })
    tm.use(webmcp())()
    expect(onDoc.registerCalls).toBe(1)
    vi.stubGlobal('document', {})
    tm.use(webmcp())()
    expect(onNav.registerCalls).toBe(1)
    vi.stubGlobal('navigator', {})
    expect(() => tm.use(webmcp())()).not.toThrow()
  })

  it('is inert under SSR', () => {
    environment.setIsServer(true)
    const mc = new FakeModelContext()
    const tm = createToolmark()
    tm.register(search)
    tm.use(webmcp({ modelContext: mc }))()
    expect(mc.registerCalls).toBe(0)
  })
})
