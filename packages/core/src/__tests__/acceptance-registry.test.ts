/**
 * Acceptance tests for the registry and tools (docs/guides/registry.md), written from its rules:
 * exact codes, limits and boundaries, dev-vs-prod behaviour, SSR and serialization decisions.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { ok } from '../call/result.ts'
import { toJsonSafeResult } from '../call/serialize.ts'
import { environment } from '../env.ts'
import { isToolmarkError, ToolmarkError } from '../errors.ts'
import { newId } from '../ids.ts'
import { DEFAULTS } from '../options.ts'
import { createTestToolmark } from '../testing/index.ts'
import { createToolmark } from '../toolmark.ts'
import type {
  RunResult,
  ToolContext,
  ToolDefinition,
  Toolmark,
  ToolmarkErrorEvent,
  ToolmarkOptions,
  ToolResult,
} from '../types.ts'
import { tick } from './helpers.ts'

const micro = (): Promise<void> => Promise.resolve()
const RO = { readOnly: true } as const

/** FNV-1a 32-bit over UTF-8, written independently of the implementation. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, '0')
}

const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `Tool ${name}`,
  hints: RO,
  run: () => ok(),
  ...extra,
})

function prod(options: ToolmarkOptions = {}): { tm: Toolmark; errors: ToolmarkErrorEvent[] } {
  const tm = createTestToolmark({ dev: false, ...options })
  const errors: ToolmarkErrorEvent[] = []
  tm.events.on('error', (e) => errors.push(e))
  return { tm, errors }
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (err) {
    return isToolmarkError(err) ? err.code : `not a ToolmarkError: ${String(err)}`
  }
  return undefined
}

afterEach(() => {
  vi.useRealTimers()
  environment.setIsServer(undefined)
})

describe('names: ^[A-Za-z0-9_.-]{1,128}$ with no empty segment', () => {
  it('accepts exactly 128 characters and rejects 129 (dev throws invalid_name)', () => {
    const tm = createTestToolmark()
    const n128 = 'N'.repeat(128)
    expect(tm.register(tool(n128)).name).toBe(n128)
    expect(tm.manifest().tools.map((t) => t.name)).toEqual([n128])
    expect(codeOf(() => tm.register(tool('N'.repeat(129))))).toBe('invalid_name')
  })

  it('counts the scope path in the 128 limit (full name 128 ok, 129 rejected)', () => {
    const tm = createTestToolmark()
    const scope = tm.scope('s'.repeat(63))
    expect(scope.register(tool('t'.repeat(64))).name).toBe(`${'s'.repeat(63)}.${'t'.repeat(64)}`)
    expect(scope.register(tool('u'.repeat(64))).name).toHaveLength(128)
    expect(codeOf(() => scope.register(tool('v'.repeat(65))))).toBe('invalid_name')
  })

  it.each(['a', '-', '_', '0', 'A-Z_a-z.0-9', 'a.b.c', 'x-y_z.w'])('accepts %j', (name) => {
    const tm = createTestToolmark()
    expect(tm.register(tool(name)).name).toBe(name)
  })

  it.each(['', '.', '..', 'a..b', '.a', 'a.', 'a b', 'a/b', 'a:b', 'é', 'a\n', 'a\tb', 'a*'])(
    'rejects %j: dev throws ToolmarkError invalid_name, prod emits it and registers nothing',
    (name) => {
      const dev = createTestToolmark()
      expect(() => dev.register(tool(name))).toThrowError(ToolmarkError)
      expect(codeOf(() => dev.register(tool(name)))).toBe('invalid_name')
      const { tm, errors } = prod()
      const rev = tm.rev
      const handle = tm.register(tool(name))
      expect(errors.map((e) => [e.code, e.level])).toEqual([['invalid_name', 'error']])
      expect(tm.rev).toBe(rev)
      expect(tm.manifest().tools).toEqual([])
      expect(() => handle.dispose()).not.toThrow()
    },
  )

  it('a scope name with an empty segment is invalid_name', () => {
    const tm = createTestToolmark()
    expect(codeOf(() => tm.scope(''))).toBe('invalid_name')
    expect(codeOf(() => tm.scope('a..b'))).toBe('invalid_name')
    expect(codeOf(() => tm.scope('a.'))).toBe('invalid_name')
  })

  it('the full name is the scope path + . + name, nested scopes joined with .', async () => {
    const tm = createTestToolmark()
    const inner = tm.scope('signup').scope('step1')
    const h = inner.register(tool('fill'))
    expect(h.name).toBe('signup.step1.fill')
    expect(tm.manifest().tools[0]).toMatchObject({
      name: 'signup.step1.fill',
      llmName: 'signup__step1__fill',
    })
    const t = tm.scope('page', { transparent: true })
    expect(t.register(tool('open')).name).toBe('open')
    expect((await tm.call('signup.step1.fill', {}, { caller: 'test' })).status).toBe('ok')
  })
})

describe('llmName: . → __, longer than 64 → 55 chars + _ + FNV-1a of the full dotted name', () => {
  it('the independent FNV-1a matches the published test vectors', () => {
    expect(fnv1a('')).toBe('811c9dc5')
    expect(fnv1a('a')).toBe('e40c292c')
    expect(fnv1a('foobar')).toBe('bf9cf968')
  })

  it('keeps a 64-character flat form and hashes a 65-character one over the dotted name', () => {
    const tm = createTestToolmark()
    const n64 = `${'a'.repeat(31)}.${'b'.repeat(31)}` // flat: 31 + 2 + 31 = 64
    const n65 = `${'a'.repeat(31)}.${'b'.repeat(32)}` // flat: 65
    tm.register(tool(n64))
    tm.register(tool(n65))
    const byName = new Map(tm.manifest().tools.map((t) => [t.name, t.llmName]))
    expect(byName.get(n64)).toBe(`${'a'.repeat(31)}__${'b'.repeat(31)}`)
    const flat65 = n65.replaceAll('.', '__')
    expect(byName.get(n65)).toBe(`${flat65.slice(0, 55)}_${fnv1a(n65)}`)
    expect(byName.get(n65)).not.toContain(fnv1a(flat65))
    expect(byName.get(n65)).toHaveLength(64)
  })

  it('hashes a 65-character name without dots and a 128-character name; all match the LLM alphabet', () => {
    const tm = createTestToolmark()
    const n65 = 'x'.repeat(65)
    const n128 = `${'p'.repeat(20)}.${'q'.repeat(20)}.${'r'.repeat(85)}`
    tm.register(tool(n65))
    tm.register(tool(n128))
    tm.register(tool('a-b.c_d'))
    const byName = new Map(tm.manifest().tools.map((t) => [t.name, t.llmName]))
    expect(byName.get(n65)).toBe(`${'x'.repeat(55)}_${fnv1a(n65)}`)
    expect(byName.get(n128)).toBe(`${n128.replaceAll('.', '__').slice(0, 55)}_${fnv1a(n128)}`)
    expect(byName.get('a-b.c_d')).toBe('a-b__c_d')
    for (const name of byName.values()) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
  })

  it('describe and info carry the same llmName', () => {
    const tm = createTestToolmark()
    const name = `${'m'.repeat(63)}.z` // flat form: 66 characters
    tm.register(tool(name))
    const expected = `${'m'.repeat(55)}_${fnv1a(name)}`
    expect(tm.describe(name)?.llmName).toBe(expected)
    expect(tm.info(name)?.llmName).toBe(expected)
  })

  it('an llmName collision is duplicate_name (dev throws, prod keeps the first)', async () => {
    const dev = createTestToolmark()
    dev.register(tool('a.b'))
    expect(codeOf(() => dev.register(tool('a__b')))).toBe('duplicate_name')
    const { tm, errors } = prod()
    tm.register(tool('a__b', { run: () => ok('first') }))
    tm.register(tool('a.b', { run: () => ok('second') }))
    expect(errors.map((e) => e.code)).toEqual(['duplicate_name'])
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['a__b'])
    expect(await tm.call('a.b', {}, { caller: 'test' })).toMatchObject({ code: 'unknown_tool' })
  })
})

describe("revisions: a tool gone since the caller's rev is stale", () => {
  it('starts at 0 and bumps on register, dispose, signal abort and scope disposal only', async () => {
    const tm = createTestToolmark({ dev: false })
    expect(tm.rev).toBe(0)
    expect(tm.manifest()).toEqual({ rev: 0, tools: [] })
    const a = tm.register(tool('a'))
    expect(tm.rev).toBe(1)
    const ac = new AbortController()
    tm.register(tool('b'), { signal: ac.signal })
    expect(tm.rev).toBe(2)
    ac.abort()
    expect(tm.rev).toBe(3)
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['a'])
    tm.register(tool('a')) // duplicate in production: rejected, no bump
    expect(tm.rev).toBe(3)
    a.dispose()
    a.dispose()
    expect(tm.rev).toBe(4)
    const s = tm.scope('s')
    s.register(tool('x'))
    expect(tm.rev).toBe(5)
    s.dispose()
    expect(tm.rev).toBeGreaterThan(5)
    expect(tm.manifest().tools).toEqual([])
  })

  it('an already aborted signal registers nothing', () => {
    const tm = createTestToolmark()
    tm.register(tool('a'), { signal: AbortSignal.abort() })
    expect(tm.rev).toBe(0)
    expect(tm.manifest().tools).toEqual([])
  })

  it('stale carries the current rev; unknown_tool carries it; other refusals never do', async () => {
    const tm = createTestToolmark({ dev: false, policy: { webmcp: ['readOnly'] } })
    const h = tm.register(tool('gone'))
    tm.register(tool('write', { hints: { consequential: true } }))
    const seen = tm.rev
    h.dispose()
    const stale = await tm.call('gone', {}, { caller: 'test', rev: seen })
    expect(stale).toEqual({ status: 'refused', code: 'stale', message: expect.any(String), rev: tm.rev })
    const unknown = await tm.call('never-was', {}, { caller: 'test', rev: seen })
    expect(unknown).toEqual({
      status: 'refused',
      code: 'unknown_tool',
      message: expect.any(String),
      rev: tm.rev,
    })
    const noRev = await tm.call('gone', {}, { caller: 'test' })
    expect(noRev).toEqual({
      status: 'refused',
      code: 'unknown_tool',
      message: expect.any(String),
      rev: tm.rev,
    })
    const notAllowed = await tm.call('write', {}, { caller: 'webmcp', rev: seen })
    expect(notAllowed).toEqual({ status: 'refused', code: 'not_allowed', message: expect.any(String) })
    expect(await tm.undo('nothing')).toEqual({
      status: 'refused',
      code: 'undo_unavailable',
      message: expect.any(String),
    })
  })

  it('a rev equal to or newer than the current one never yields stale', async () => {
    const tm = createTestToolmark()
    tm.register(tool('gone')).dispose()
    expect(await tm.call('gone', {}, { caller: 'test', rev: tm.rev })).toMatchObject({ code: 'unknown_tool' })
    expect(await tm.call('gone', {}, { caller: 'test', rev: tm.rev + 100 })).toMatchObject({
      code: 'unknown_tool',
    })
    tm.register(tool('here'))
    expect(await tm.call('here', {}, { caller: 'test', rev: tm.rev + 100 })).toEqual(ok())
  })

  it('a tool re-registered after it went away is callable with an old rev', async () => {
    const tm = createTestToolmark()
    tm.register(tool('t')).dispose()
    const seen = tm.rev
    tm.register(tool('t', { run: () => ok('back') }))
    expect(await tm.call('t', {}, { caller: 'test', rev: seen - 1 })).toEqual(ok('back'))
  })
})

describe('scopes and when', () => {
  it('when hides a scope while false; the manifest, describe and calls agree; flipping back shows it', async () => {
    let open = false
    const tm = createTestToolmark()
    const s = tm.scope('wizard', { when: () => open })
    s.register(tool('next'))
    await tick()
    expect(tm.manifest().tools).toEqual([])
    expect(tm.describe('wizard.next')).toBeUndefined()
    expect(tm.info('wizard.next')?.visible).toBe(false)
    expect(await tm.call('wizard.next', {}, { caller: 'test' })).toMatchObject({ code: 'unknown_tool' })
    open = true
    const seen: number[] = []
    tm.subscribe((rev) => seen.push(rev))
    s.setWhen(() => open)
    await tick()
    expect(seen).toEqual([tm.rev])
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['wizard.next'])
    expect(await tm.call('wizard.next', {}, { caller: 'test' })).toEqual(ok())
  })

  it('nested scopes: disposing the parent removes every nested tool', () => {
    const tm = createTestToolmark()
    const parent = tm.scope('p')
    const child = parent.scope('c')
    child.register(tool('x'))
    parent.register(tool('y'))
    parent.dispose()
    expect(child.disposed).toBe(true)
    expect(tm.manifest().tools).toEqual([])
    expect(codeOf(() => child.register(tool('z')))).toBe('scope_disposed')
  })
})

describe('manifest and describe', () => {
  it('manifest entries are summaries sorted by name; describe adds inputSchema', () => {
    const tm = createTestToolmark()
    tm.register(tool('b', { title: 'Bee', hints: { readOnly: true, untrustedContent: true } }))
    tm.register(tool('a', { input: z.object({ q: z.string().describe('Keywords') }) }))
    tm.register(tool('B'))
    const m = tm.manifest()
    expect(m.rev).toBe(tm.rev)
    expect(m.tools.map((t) => t.name)).toEqual(['B', 'a', 'b'])
    expect(m.tools[2]).toEqual({
      name: 'b',
      llmName: 'b',
      title: 'Bee',
      description: 'Tool b',
      hints: { readOnly: true, untrustedContent: true },
    })
    expect(m.tools[1]).not.toHaveProperty('inputSchema')
    expect(tm.describe('a')).toMatchObject({
      name: 'a',
      inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'Keywords' } } },
    })
    expect(tm.describe('B')?.inputSchema).toEqual({ type: 'object' })
    const full = tm.manifest({ detail: 'full' })
    expect(full.tools.every((t) => typeof t.inputSchema === 'object')).toBe(true)
  })

  it('describe and manifest respect the caller (policy and missing confirmation path)', () => {
    const tm = createTestToolmark({ policy: { tour: ['readOnly'] } })
    tm.register(tool('read'))
    tm.register(tool('write', { hints: { consequential: true } }))
    expect(tm.manifest({ caller: 'tour' }).tools.map((t) => t.name)).toEqual(['read'])
    expect(tm.describe('write', { caller: 'tour' })).toBeUndefined()
    expect(tm.describe('write', { caller: 'inapp' })?.name).toBe('write')
    expect(tm.describe('write', { caller: 'human' })?.name).toBe('write')
  })
})

describe('policy', () => {
  it('a caller whose policy excludes a hint class gets not_allowed; human may call everything', async () => {
    const run = vi.fn(() => ok())
    const tm = createTestToolmark({ policy: { mcp: ['readOnly'], inapp: [] } })
    tm.register(tool('del', { hints: { destructive: true }, run }))
    tm.register(tool('look', { run }))
    expect(await tm.call('del', {}, { caller: 'mcp' })).toEqual({
      status: 'refused',
      code: 'not_allowed',
      message: expect.any(String),
    })
    expect(await tm.call('look', {}, { caller: 'inapp' })).toMatchObject({ code: 'not_allowed' })
    expect(await tm.call('look', {}, { caller: 'mcp' })).toEqual(ok())
    expect(await tm.call('del', {}, { caller: 'human' })).toEqual(ok())
    expect(run).toHaveBeenCalledTimes(2)
  })

  it('an unknown caller is refused and nothing runs', async () => {
    const run = vi.fn(() => ok())
    const tm = createTestToolmark()
    tm.register(tool('x', { run }))
    expect(await tm.call('x', {}, { caller: 'robot' as never })).toMatchObject({
      status: 'refused',
      code: 'not_allowed',
    })
    expect(run).not.toHaveBeenCalled()
  })
})

describe('tm.call never throws and never rejects', () => {
  it('answers every kind of bad argument with a ToolResult', async () => {
    const tm = createTestToolmark()
    tm.register(tool('x'))
    const attempts: Promise<ToolResult>[] = [
      tm.call(undefined as never, {}, { caller: 'test' }),
      tm.call(42 as never, {}, { caller: 'test' }),
      tm.call('x', {}, undefined as never),
      tm.call('x', {}, null as never),
      tm.call('__proto__', {}, { caller: 'test' }),
      tm.call('constructor', {}, { caller: 'test' }),
    ]
    const results = await Promise.all(attempts)
    for (const r of results) expect(['refused', 'error']).toContain(r.status)
  })

  it('a throwing or rejecting run → error "Tool failed" + tool_threw with tool and callId', async () => {
    const { tm, errors } = prod()
    tm.register(
      tool('sync', {
        run: () => {
          throw new Error('secret detail')
        },
      }),
    )
    tm.register(
      tool('async', {
        run: async () => {
          throw new Error('secret detail')
        },
      }),
    )
    expect(await tm.call('sync', {}, { caller: 'test', callId: 'c-1' })).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
    expect(await tm.call('async', {}, { caller: 'test', callId: 'c-2' })).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
    expect(errors.map((e) => [e.code, e.tool, e.callId])).toEqual([
      ['tool_threw', 'sync', 'c-1'],
      ['tool_threw', 'async', 'c-2'],
    ])
    expect(errors[0]?.cause).toBeInstanceOf(Error)
  })

  it('a throwing validator, summary or snapshot → error "Tool failed" + tool_threw, run never called', async () => {
    const run = vi.fn(() => ok())
    const throwing: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: () => {
          throw new Error('validator bug')
        },
      },
    }
    const { tm, errors } = prod()
    tm.register(tool('v', { input: throwing, jsonSchema: { type: 'object' }, run }))
    tm.register(
      tool('s', {
        hints: { consequential: true },
        summary: () => {
          throw new Error('summary bug')
        },
        run,
      }),
    )
    tm.register(
      tool('n', {
        hints: { consequential: true },
        snapshot: () => {
          throw new Error('snapshot bug')
        },
        run,
      }),
    )
    const failed = { status: 'error', message: 'Tool failed' }
    expect(await tm.call('v', {}, { caller: 'test' })).toEqual(failed)
    expect(await tm.call('s', {}, { caller: 'inapp' })).toEqual(failed)
    expect(await tm.call('n', {}, { caller: 'inapp' })).toEqual(failed)
    expect(run).not.toHaveBeenCalled()
    expect(errors.map((e) => e.code)).toEqual(['tool_threw', 'tool_threw', 'tool_threw'])
  })

  it('invalid input: issues with dot-joined paths ("" for the root) and run never sees it', async () => {
    const run = vi.fn(() => ok())
    const tm = createTestToolmark()
    tm.register(
      tool('pay', {
        input: z.object({ cards: z.array(z.object({ cvc: z.string().length(3) })) }),
        run,
      }),
    )
    const r = await tm.call('pay', { cards: [{ cvc: '123' }, { cvc: 7 }] }, { caller: 'test' })
    expect(r).toEqual({ status: 'invalid', issues: [{ path: 'cards.1.cvc', message: expect.any(String) }] })
    const root = await tm.call('pay', 'nope', { caller: 'test' })
    expect(root).toEqual({ status: 'invalid', issues: [{ path: '', message: expect.any(String) }] })
    expect(run).not.toHaveBeenCalled()
  })

  it('ctx carries callId (the caller-supplied one or a fresh UUID v4), caller and a signal', async () => {
    const seen: Array<{ callId: string; caller: string; aborted: boolean }> = []
    const tm = createTestToolmark()
    tm.register(
      tool('c', {
        run: (_: unknown, ctx: ToolContext) => {
          seen.push({ callId: ctx.callId, caller: ctx.caller, aborted: ctx.signal.aborted })
          return ok()
        },
      }),
    )
    await tm.call('c', {}, { caller: 'tour', callId: 'mine' })
    await tm.call('c', {}, { caller: 'mcp' })
    expect(seen[0]).toEqual({ callId: 'mine', caller: 'tour', aborted: false })
    expect(seen[1]?.caller).toBe('mcp')
    expect(seen[1]?.callId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})

describe('concurrency: per-scope queue, 32 pending, the 33rd is busy', () => {
  it('32 pending calls are accepted, the 33rd is busy; other scopes still run; a transparent scope shares the queue', async () => {
    const tm = createTestToolmark()
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const s = tm.scope('s')
    s.register(
      tool('wait', {
        run: async () => {
          await gate
          return ok()
        },
      }),
    )
    s.scope('inner', { transparent: true }).register(tool('same', { run: () => ok('same') }))
    tm.register(tool('other', { run: () => ok('other') }))
    tm.scope('t').register(tool('third', { run: () => ok('third') }))
    const first32 = Array.from({ length: 32 }, () => tm.call('s.wait', {}, { caller: 'test' }))
    const busy = await tm.call('s.wait', {}, { caller: 'test' })
    expect(busy).toEqual({ status: 'refused', code: 'busy', message: expect.any(String) })
    expect(await tm.call('s.same', {}, { caller: 'test' })).toMatchObject({ code: 'busy' })
    expect(await tm.call('other', {}, { caller: 'test' })).toEqual(ok('other'))
    expect(await tm.call('t.third', {}, { caller: 'test' })).toEqual(ok('third'))
    release()
    const results = await Promise.all(first32)
    expect(results.every((r) => r.status === 'ok')).toBe(true)
    expect(await tm.call('s.same', {}, { caller: 'test' })).toEqual(ok('same'))
  })

  it('runs calls of one scope one at a time in arrival order', async () => {
    const tm = createTestToolmark()
    const log: string[] = []
    tm.register(
      tool('step', {
        input: z.object({ n: z.number() }),
        run: async ({ n }: { n: number }) => {
          log.push(`start ${n}`)
          await tick()
          log.push(`end ${n}`)
          return ok(n)
        },
      }),
    )
    const all = await Promise.all([1, 2, 3].map((n) => tm.call('step', { n }, { caller: 'test' })))
    expect(all).toEqual([ok(1), ok(2), ok(3)])
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3'])
  })

  it('a queued call cancelled before its turn never runs and frees its place', async () => {
    const tm = createTestToolmark()
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const run = vi.fn(async () => {
      await gate
      return ok()
    })
    tm.register(tool('w', { run }))
    const first = tm.call('w', {}, { caller: 'test' })
    const ac = new AbortController()
    const second = tm.call('w', {}, { caller: 'test', signal: ac.signal })
    const more = Array.from({ length: 30 }, () => tm.call('w', {}, { caller: 'test' }))
    ac.abort()
    expect(await second).toEqual({ status: 'cancelled', by: 'signal' })
    const again = tm.call('w', {}, { caller: 'test' }) // the freed place
    release()
    expect((await first).status).toBe('ok')
    expect((await again).status).toBe('ok')
    await Promise.all(more)
    expect(run).toHaveBeenCalledTimes(32)
  })
})

describe('deadlines, cancellation and late results', () => {
  it('the documented default callTimeoutMs is 30000 and the grace period 1000', async () => {
    expect(DEFAULTS.callTimeoutMs).toBe(30_000)
    expect(DEFAULTS.abortGraceMs).toBe(1_000)
    expect(DEFAULTS.confirmExpiryMs).toBe(600_000)
    expect(DEFAULTS.budget).toBe(40)
    vi.useFakeTimers()
    const { tm, errors } = prod()
    let signal: AbortSignal | undefined
    let finish: () => void = () => {}
    tm.register(
      tool('stuck', {
        run: (_: unknown, ctx: ToolContext) =>
          new Promise<RunResult>((resolve) => {
            signal = ctx.signal
            finish = () => resolve(ok('late'))
          }),
      }),
    )
    const results: ToolResult[] = []
    void tm.call('stuck', {}, { caller: 'test', callId: 'slow-1' }).then((r) => results.push(r))
    await vi.advanceTimersByTimeAsync(29_999)
    expect(signal?.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(signal?.aborted).toBe(true)
    await vi.advanceTimersByTimeAsync(999)
    expect(results).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(results).toEqual([{ status: 'cancelled', by: 'signal' }])
    finish()
    await vi.advanceTimersByTimeAsync(0)
    expect(results).toHaveLength(1)
    expect(errors.map((e) => [e.code, e.tool, e.callId])).toEqual([['late_result', 'stuck', 'slow-1']])
  })

  it('a late rejection is a late_result too, never a second result', async () => {
    vi.useFakeTimers()
    const { tm, errors } = prod({ callTimeoutMs: 100, abortGraceMs: 50 })
    let fail: () => void = () => {}
    tm.register(
      tool('stuck', {
        run: () =>
          new Promise<RunResult>((_resolve, reject) => {
            fail = () => reject(new Error('late'))
          }),
      }),
    )
    const p = tm.call('stuck', {}, { caller: 'test' })
    await vi.advanceTimersByTimeAsync(150)
    expect(await p).toEqual({ status: 'cancelled', by: 'signal' })
    fail()
    await vi.advanceTimersByTimeAsync(0)
    expect(errors.map((e) => e.code)).toEqual(['late_result'])
  })
})

describe('output validation (development only)', () => {
  it('dev emits output_invalid and returns the result unchanged; prod does not validate', async () => {
    const def = tool('o', { output: z.object({ n: z.number() }), run: () => ok({ n: 'x' }) as never })
    const dev = createTestToolmark()
    const devErrors: ToolmarkErrorEvent[] = []
    dev.events.on('error', (e) => devErrors.push(e))
    dev.register(def)
    expect(await dev.call('o', {}, { caller: 'test' })).toEqual(ok({ n: 'x' }))
    expect(devErrors.map((e) => [e.code, e.tool])).toEqual([['output_invalid', 'o']])
    const { tm, errors } = prod()
    tm.register(def)
    expect(await tm.call('o', {}, { caller: 'test' })).toEqual(ok({ n: 'x' }))
    expect(errors).toEqual([])
  })
})

describe('undo', () => {
  it('undo_unavailable when none, after use, and for the evicted 1st of 101 entries', async () => {
    const tm = createTestToolmark()
    tm.register(
      tool('u', {
        run: (_: unknown, ctx: ToolContext) => {
          ctx.registerUndo(() => ok(ctx.callId))
          return ok()
        },
      }),
    )
    for (let i = 0; i < 100; i++) await tm.call('u', {}, { caller: 'test', callId: `c${i}` })
    expect(await tm.undo('c0')).toEqual(ok('c0'))
    expect(await tm.undo('c0')).toMatchObject({ status: 'refused', code: 'undo_unavailable' })
    for (let i = 100; i < 102; i++) await tm.call('u', {}, { caller: 'test', callId: `c${i}` })
    // c0 was consumed, so 101 entries were stored after it: c1 is the one evicted.
    expect(await tm.undo('c1')).toMatchObject({ code: 'undo_unavailable' })
    expect(await tm.undo('c2')).toEqual(ok('c2'))
    expect(await tm.undo('c101')).toEqual(ok('c101'))
  })
})

describe('subscribe and events', () => {
  it('a burst of registrations publishes once, with the final rev; unsubscribe stops it', async () => {
    const tm = createTestToolmark()
    const seen: number[] = []
    const changes: number[] = []
    const off = tm.subscribe((rev) => seen.push(rev))
    tm.events.on('change', (e) => changes.push(e.rev))
    const handles = Array.from({ length: 1000 }, (_, i) => tm.register(tool(`t${i}`)))
    for (const h of handles) h.dispose()
    expect(seen).toEqual([])
    await tick()
    expect(seen).toEqual([2000])
    expect(changes).toEqual([2000])
    off()
    tm.register(tool('later'))
    await tick()
    expect(seen).toEqual([2000])
    expect(changes).toEqual([2000, 2001])
  })

  it('every events.on returns an unsubscribe; a throwing listener never breaks a call', async () => {
    const tm = createTestToolmark()
    tm.register(tool('x', { run: () => ok(1) }))
    await tick()
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    const got: string[] = []
    const offs = (['call', 'result', 'confirm', 'interaction', 'change', 'error'] as const).map((name) =>
      tm.events.on(name, () => got.push(name)),
    )
    tm.events.on('call', () => {
      throw new Error('listener bug')
    })
    expect(await tm.call('x', {}, { caller: 'test' })).toEqual(ok(1))
    expect(got).toEqual(['call', 'result'])
    for (const off of offs) off()
    await tm.call('x', {}, { caller: 'test' })
    expect(got).toEqual(['call', 'result'])
    error.mockRestore()
  })

  it('call and result events carry callId, tool, caller and (redacted) input', async () => {
    const tm = createTestToolmark()
    tm.register(tool('pay', { sensitivePaths: ['cards[].cvc'], run: () => ok('paid') }))
    const calls: unknown[] = []
    const results: unknown[] = []
    tm.events.on('call', (e) => calls.push(e))
    tm.events.on('result', (e) => results.push(e))
    await tm.call('pay', { cards: [{ cvc: '123' }, { cvc: '456' }] }, { caller: 'mcp', callId: 'k' })
    expect(calls).toEqual([
      {
        callId: 'k',
        tool: 'pay',
        caller: 'mcp',
        input: { cards: [{ cvc: '[redacted]' }, { cvc: '[redacted]' }] },
      },
    ])
    expect(results).toEqual([
      { callId: 'k', tool: 'pay', caller: 'mcp', result: ok('paid'), durationMs: expect.any(Number) },
    ])
  })

  it('state() is redacted at sensitivePaths', () => {
    const tm = createTestToolmark()
    tm.register(
      tool('form', {
        sensitivePaths: ['password'],
        state: () => ({ email: 'a@b.c', password: 'hunter2' }),
      }),
    )
    expect(tm.state('form')).toEqual({ email: 'a@b.c', password: '[redacted]' })
  })
})

describe('SSR: without document, registration and consumers are inert', () => {
  it('createToolmark on the server: register, use and subscribe do nothing; calls are unknown_tool', async () => {
    environment.setIsServer(true)
    const tm = createToolmark({ dev: true })
    const consumer = vi.fn(() => () => {})
    const listener = vi.fn()
    tm.subscribe(listener)
    const run = vi.fn(() => ok())
    const h = tm.register(tool('x', { run }))
    expect(h.name).toBe('x')
    expect(() => h.dispose()).not.toThrow()
    // Misconfiguration is inert too: the same component code renders on the server.
    expect(() => tm.register(tool('x'))).not.toThrow()
    const dispose = tm.use(consumer)
    expect(consumer).not.toHaveBeenCalled()
    expect(() => dispose()).not.toThrow()
    expect(tm.rev).toBe(0)
    expect(tm.manifest().tools).toEqual([])
    expect(await tm.call('x', {}, { caller: 'test' })).toMatchObject({ code: 'unknown_tool', rev: 0 })
    await tick()
    expect(listener).not.toHaveBeenCalled()
    expect(run).not.toHaveBeenCalled()
  })

  it('the switch decides at registration; createTestToolmark stays active on the server', async () => {
    environment.setIsServer(false)
    const browser = createToolmark()
    browser.register(tool('x'))
    expect(browser.manifest().tools).toHaveLength(1)
    environment.setIsServer(true)
    const test = createTestToolmark()
    test.register(tool('y', { run: () => ok('y') }))
    expect(await test.call('y', {}, { caller: 'test' })).toEqual(ok('y'))
    const consumer = vi.fn(() => undefined)
    test.use(consumer)
    expect(consumer).toHaveBeenCalledTimes(1)
    environment.setIsServer(undefined)
    expect(environment.isServer()).toBe(typeof document === 'undefined')
  })
})

describe('dev vs production for each misconfiguration code', () => {
  const noConverter: StandardSchemaV1 = {
    '~standard': { version: 1, vendor: 'plain', validate: (value) => ({ value }) },
  }
  const cases: Array<[string, ToolmarkOptions, (tm: Toolmark) => void]> = [
    [
      'duplicate_name',
      {},
      (tm) => {
        tm.register(tool('x'))
        tm.register(tool('x'))
      },
    ],
    ['invalid_name', {}, (tm) => tm.register(tool('bad name'))],
    ['invalid_scope', {}, (tm) => tm.register(tool('x'), { scope: createTestToolmark().scope('s') })],
    [
      'scope_disposed',
      {},
      (tm) => {
        const s = tm.scope('s')
        s.dispose()
        s.register(tool('x'))
      },
    ],
    [
      'missing_confirm_handler',
      { confirmMode: { inapp: 'inline' } },
      (tm) => tm.register(tool('x', { hints: { consequential: true } })),
    ],
    ['schema_conversion_failed', {}, (tm) => tm.register(tool('x', { input: noConverter }))],
  ]

  it.each(cases)(
    '%s: dev throws ToolmarkError with the code; prod emits an error event',
    (code, opts, act) => {
      // createTestToolmark installs approveAll; missing_confirm_handler needs a registry without a handler.
      const noHandler = code === 'missing_confirm_handler'
      const devTm = noHandler ? devWithoutHandler(opts) : createTestToolmark(opts)
      let thrown: unknown
      try {
        act(devTm)
      } catch (err) {
        thrown = err
      }
      expect(thrown).toBeInstanceOf(ToolmarkError)
      expect((thrown as ToolmarkError).code).toBe(code)
      const prodTm = noHandler ? prodWithoutHandler(opts) : prod(opts)
      expect(() => act(prodTm.tm)).not.toThrow()
      expect(prodTm.errors.map((e) => [e.code, e.level])).toContainEqual([code, 'error'])
    },
  )

  it('invalid_policy (policy.human, unknown hint class, unknown caller): dev throws at creation, prod reports on the next microtask', async () => {
    for (const policy of [{ human: ['readOnly'] }, { inapp: ['readOnly', 'sneaky'] }, { robot: [] }]) {
      expect(codeOf(() => createTestToolmark({ policy: policy as never }))).toBe('invalid_policy')
      const tm = createTestToolmark({ dev: false, policy: policy as never })
      const errors: string[] = []
      tm.events.on('error', (e) => errors.push(e.code))
      await micro()
      expect(errors).toEqual(['invalid_policy'])
    }
  })

  it('invalid_confirm_mode (webmcp/mcp/tour/human or an unknown mode): dev throws, prod reports and ignores it', async () => {
    for (const confirmMode of [
      { webmcp: 'deferred' },
      { mcp: 'inline' },
      { tour: 'deferred' },
      { human: 'inline' },
      { inapp: 'later' },
    ]) {
      expect(codeOf(() => createTestToolmark({ confirmMode: confirmMode as never }))).toBe(
        'invalid_confirm_mode',
      )
    }
    const tm = createTestToolmark({ dev: false, confirmMode: { webmcp: 'deferred' } as never })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    await micro()
    expect(errors).toEqual(['invalid_confirm_mode'])
    tm.register(tool('w', { hints: { consequential: true }, run: () => ok('ran') }))
    expect(await tm.call('w', {}, { caller: 'webmcp' })).toEqual(ok('ran'))
  })

  it('warnings are development-only events with level warning, never thrown', async () => {
    const collect = (tm: Toolmark): ToolmarkErrorEvent[] => {
      const out: ToolmarkErrorEvent[] = []
      tm.events.on('error', (e) => out.push(e))
      return out
    }
    for (const dev of [true, false]) {
      environment.setIsServer(false)
      const tm = createToolmark({ dev, budget: 2 })
      const events = collect(tm)
      tm.register(tool('plain', { hints: {} })) // unannotated_tool
      tm.register(tool('write', { hints: { consequential: true } })) // missing_confirm_handler (inline callers)
      tm.register(
        tool('mid', {
          run: async (_: unknown, ctx: ToolContext) => ok(await ctx.confirm({ summary: 's' })),
        }),
      ) // 3 visible tools > budget 2
      await tick()
      expect(await tm.call('mid', {}, { caller: 'inapp' })).toEqual(
        ok({ approved: false, reason: 'confirmation_unavailable' }),
      )
      if (dev) {
        expect(events.map((e) => [e.code, e.level])).toEqual([
          ['unannotated_tool', 'warning'],
          ['missing_confirm_handler', 'warning'],
          ['tool_budget_exceeded', 'warning'],
          ['ctx_confirm_unavailable', 'warning'],
        ])
      } else {
        expect(events).toEqual([])
      }
    }
  })

  it('tool_budget_exceeded: 40 visible tools are fine, 41 warn once per revision', async () => {
    const tm = createTestToolmark()
    const warnings: number[] = []
    tm.events.on('error', (e) => e.code === 'tool_budget_exceeded' && warnings.push(tm.rev))
    for (let i = 0; i < 40; i++) tm.register(tool(`t${i}`))
    await tick()
    expect(warnings).toEqual([])
    tm.register(tool('t40'))
    tm.register(tool('t41'))
    await tick()
    expect(warnings).toHaveLength(1)
    tm.register(tool('t42'))
    await tick()
    expect(warnings).toHaveLength(2)
    // Hidden tools do not count.
    const hidden = createTestToolmark()
    const hiddenWarnings: string[] = []
    hidden.events.on('error', (e) => hiddenWarnings.push(e.code))
    const s = hidden.scope('off', { when: false })
    for (let i = 0; i < 41; i++) s.register(tool(`t${i}`))
    await tick()
    expect(hiddenWarnings).toEqual([])
  })
})

function devWithoutHandler(options: ToolmarkOptions): Toolmark {
  environment.setIsServer(false)
  return createToolmark({ dev: true, ...options })
}

function prodWithoutHandler(options: ToolmarkOptions): { tm: Toolmark; errors: ToolmarkErrorEvent[] } {
  environment.setIsServer(false)
  const tm = createToolmark({ dev: false, ...options })
  const errors: ToolmarkErrorEvent[] = []
  tm.events.on('error', (e) => errors.push(e))
  return { tm, errors }
}

describe('results across a boundary: JSON semantics (documented decisions)', () => {
  it('toJSON is honoured (Date → ISO 8601), undefined properties are dropped, undefined in arrays → null', () => {
    const when = new Date('2026-03-04T05:06:07.089Z')
    expect(
      toJsonSafeResult(ok({ when, gone: undefined, list: [1, undefined, 3], nested: { toJSON: () => 'j' } })),
    ).toEqual({
      status: 'ok',
      data: { when: '2026-03-04T05:06:07.089Z', list: [1, null, 3], nested: 'j' },
    })
    expect(toJsonSafeResult(ok(undefined))).toEqual({ status: 'ok' })
    expect(toJsonSafeResult(ok())).toEqual({ status: 'ok' })
    expect(
      toJsonSafeResult({
        status: 'needs_confirmation',
        confirmId: 'c',
        summary: 's',
        changes: [{ path: 'a', before: undefined, after: 1 }],
      }),
    ).toEqual({
      status: 'needs_confirmation',
      confirmId: 'c',
      summary: 's',
      changes: [{ path: 'a', after: 1 }],
    })
  })

  it.each([
    ['BigInt', { n: 10n }],
    [
      'a cycle',
      (() => {
        const a: Record<string, unknown> = {}
        a.self = a
        return a
      })(),
    ],
    ['NaN', { n: Number.NaN }],
    ['Infinity', { n: Number.POSITIVE_INFINITY }],
    ['a Map', { m: new Map([[1, 2]]) }],
    ['a Set', { s: new Set([1]) }],
    ['a typed array', { b: new Uint8Array(2) }],
    [
      'a throwing toJSON',
      {
        t: {
          toJSON: () => {
            throw new Error('x')
          },
        },
      },
    ],
  ])('%s turns the whole result into error "Result not serializable"', (_what, data) => {
    const failures: unknown[] = []
    expect(toJsonSafeResult(ok(data), (err) => failures.push(err))).toEqual({
      status: 'error',
      message: 'Result not serializable',
    })
    expect(failures).toHaveLength(1)
  })

  it('the copy is detached: mutating the original afterwards does not change it', () => {
    const data = { list: [{ a: 1 }] }
    const safe = toJsonSafeResult(ok(data)) as { data: typeof data }
    data.list[0]!.a = 2
    expect(safe.data.list[0]!.a).toBe(1)
  })

  it('in-process tm.call returns data as the tool returned it (documented: no copy)', async () => {
    const tm = createTestToolmark()
    const data = { when: new Date(0) }
    tm.register(tool('d', { run: () => ok(data) }))
    const r = await tm.call('d', {}, { caller: 'test' })
    expect(r.status === 'ok' && r.data).toBe(data)
  })
})

describe('ids: crypto.randomUUID, else an RFC 4122 v4 UUID from getRandomValues, never Math.random', () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

  afterEach(() => {
    vi.unstubAllGlobals()
    vi.restoreAllMocks()
  })

  it('falls back to getRandomValues without randomUUID and never calls Math.random', () => {
    const real = globalThis.crypto
    const random = vi.spyOn(Math, 'random')
    const getRandomValues = vi.fn(<T extends ArrayBufferView>(a: T): T => real.getRandomValues(a as never))
    vi.stubGlobal('crypto', { getRandomValues })
    const ids = new Set(Array.from({ length: 50 }, () => newId()))
    expect(ids.size).toBe(50)
    for (const id of ids) expect(id).toMatch(V4)
    expect(getRandomValues).toHaveBeenCalled()
    expect(random).not.toHaveBeenCalled()
  })

  it('throws without Web Crypto rather than using Math.random', () => {
    const random = vi.spyOn(Math, 'random')
    vi.stubGlobal('crypto', undefined)
    expect(() => newId()).toThrow()
    expect(random).not.toHaveBeenCalled()
  })

  it('confirmIds and call ids minted by the registry are v4 UUIDs', async () => {
    const tm = createTestToolmark()
    const callIds: string[] = []
    tm.events.on('call', (e) => callIds.push(e.callId))
    tm.register(tool('w', { hints: { consequential: true } }))
    const r = await tm.call('w', {}, { caller: 'inapp' })
    expect(r.status === 'needs_confirmation' && r.confirmId).toMatch(V4)
    expect(callIds[0]).toMatch(V4)
  })
})
