import * as v from 'valibot'
import { describe, expectTypeOf, it } from 'vitest'
import * as z from 'zod'
import type {
  Caller,
  ConfirmRequest,
  Manifest,
  PendingConfirmation,
  Scope,
  ToolCaller,
  ToolContext,
  ToolDefinition,
  ToolHandle,
  ToolManifest,
  ToolResult,
} from '../index.ts'
import { createConfirmQueue, createToolmark, fromJsonSchema } from '../index.ts'
import { createTestToolmark } from '../testing/index.ts'
import { ok } from '../tool/result.ts'

describe('input inference', () => {
  it('types run input from a zod schema (the parsed output)', () => {
    const tm = createToolmark()
    tm.register({
      name: 'search',
      description: 'd',
      input: z.object({ query: z.string(), limit: z.coerce.number().default(10) }),
      run: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ query: string; limit: number }>()
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>()
        expectTypeOf(ctx.caller).toEqualTypeOf<Caller>()
        return ok(input.query)
      },
    })
  })

  it('types run input from a valibot schema', () => {
    createToolmark().register({
      name: 'v',
      description: 'd',
      input: v.object({ n: v.number(), tags: v.array(v.string()) }),
      jsonSchema: { type: 'object' },
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ n: number; tags: string[] }>()
        return ok()
      },
    })
  })

  it('types run input from fromJsonSchema<T>() and unknown without a schema', () => {
    const tm = createToolmark()
    tm.register({
      name: 'j',
      description: 'd',
      input: fromJsonSchema<{ id: string }>({
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      }),
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ id: string }>()
        return ok()
      },
    })
    tm.register({
      name: 'none',
      description: 'd',
      run: (input) => {
        expectTypeOf(input).toBeUnknown()
      },
    })
  })

  it('types summary from the schema, and rejects a wrong run return', () => {
    const tm = createToolmark()
    tm.register({
      name: 's',
      description: 'd',
      input: z.object({ name: z.string() }),
      summary: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ name: string }>()
        return input.name
      },
      run: () => ok(),
    })
    tm.register({
      name: 'bad',
      description: 'd',
      // @ts-expect-error run must return a ToolResult (not a string)
      run: () => 'nope',
    })
    tm.register({
      name: 'bad2',
      description: 'd',
      input: z.object({ name: z.string() }),
      // @ts-expect-error the input has no `age`
      run: (input) => ok(input.age),
    })
  })
})

describe('public surface', () => {
  it('call, register, scope, manifest, confirmations', () => {
    const tm = createTestToolmark()
    expectTypeOf(tm.call('x', {}, { caller: 'inapp' })).toEqualTypeOf<Promise<ToolResult>>()
    // @ts-expect-error caller is required
    void tm.call('x', {}, {})
    // @ts-expect-error unknown caller
    void tm.call('x', {}, { caller: 'root' })
    expectTypeOf(tm.register({ name: 'a', description: 'd', run: () => ok() })).toEqualTypeOf<ToolHandle>()
    expectTypeOf(tm.scope('s')).toEqualTypeOf<Scope>()
    expectTypeOf(tm.manifest()).toEqualTypeOf<Manifest>()
    expectTypeOf(tm.manifest({ detail: 'full' })).toEqualTypeOf<Manifest<ToolManifest>>()
    expectTypeOf(tm.pendingConfirmations()).toEqualTypeOf<readonly PendingConfirmation[]>()
    expectTypeOf(tm.confirmPending('id', { approved: true })).toEqualTypeOf<Promise<ToolResult>>()
    const q = createConfirmQueue()
    expectTypeOf(q.getPending()).toEqualTypeOf<readonly ConfirmRequest[]>()
    const off = tm.events.on('error', (e) => {
      expectTypeOf(e.code).toBeString()
    })
    expectTypeOf(off).toEqualTypeOf<() => void>()
  })

  it('narrows ToolResult by status', () => {
    const r = {} as ToolResult<{ n: number }>
    if (r.status === 'ok') expectTypeOf(r.data).toEqualTypeOf<{ n: number } | undefined>()
    if (r.status === 'refused')
      expectTypeOf(r.code).toEqualTypeOf<
        'unknown_tool' | 'stale' | 'not_allowed' | 'busy' | 'undo_unavailable' | 'confirmation_expired'
      >()
    if (r.status === 'needs_confirmation') expectTypeOf(r.confirmId).toBeString()
  })
})

describe('manifest summary entries', () => {
  it('carry the optional sensitivePaths extension as read-only strings', () => {
    const tm = createTestToolmark()
    expectTypeOf(tm.manifest().tools[0]!.sensitivePaths).toEqualTypeOf<readonly string[] | undefined>()
  })
})

describe('callers', () => {
  it('takes the non-human callers only, as a read-only list', () => {
    expectTypeOf<ToolDefinition['callers']>().toEqualTypeOf<readonly ToolCaller[] | undefined>()
    expectTypeOf<ToolCaller>().toEqualTypeOf<'inapp' | 'webmcp' | 'mcp' | 'tour' | 'test'>()
    const tm = createToolmark()
    const agents = ['inapp', 'mcp'] as const
    tm.register({ name: 'a', description: 'd', callers: agents, run: () => ok() })
    // @ts-expect-error a human may call every tool: it is not a caller a tool is limited to
    tm.register({ name: 'b', description: 'd', callers: ['human'], run: () => ok() })
    // @ts-expect-error not a caller
    tm.register({ name: 'c', description: 'd', callers: ['desktop'], run: () => ok() })
    expectTypeOf(tm.info('a')!.callers).toEqualTypeOf<ToolCaller[] | undefined>()
  })
})
