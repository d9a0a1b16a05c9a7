import { beforeEach, describe, expect, it, vi } from 'vitest'
import type * as Testing from '../../testing/index.ts'
import type * as Call from '../../tool/result.ts'
import type { JsonSchema, ToolmarkErrorEvent, ToolmarkOptions } from '../../types.ts'
import type * as JsonSchemaModule from '../json-schema.ts'

const SCHEMA: JsonSchema = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 1 } },
  required: ['n'],
  additionalProperties: false,
}
/** `minimum` must be a number: `fromJsonSchema` throws a TypeError for this schema. */
const BROKEN: JsonSchema = { type: 'object', properties: { n: { minimum: 'one' } } }

// Each test starts from fresh modules, so the compiler chunk is not loaded yet.
let testing: typeof Testing
let ok: typeof Call.ok
beforeEach(async () => {
  vi.resetModules()
  testing = await import('../../testing/index.ts')
  ;({ ok } = await import('../../tool/result.ts'))
})

function registry(options: ToolmarkOptions = {}) {
  const tm = testing.createTestToolmark({ dev: false, ...options })
  const errors: ToolmarkErrorEvent[] = []
  tm.events.on('error', (e) => errors.push(e))
  return { tm, errors }
}

const tool = (jsonSchema: JsonSchema) => ({
  name: 'j',
  description: 'd',
  hints: { readOnly: true },
  jsonSchema,
  run: (x: unknown) => ok(x),
})

describe('tools declared with only a jsonSchema', () => {
  it('are validated on demand: the first call waits for the compiler, later ones do not', async () => {
    const { tm } = registry()
    tm.register(tool(SCHEMA))
    // Called in the same tick as the registration, before the compiler chunk can have arrived.
    const first = tm.call('j', { n: 0 }, { caller: 'test' })
    const second = tm.call('j', { n: 2 }, { caller: 'test' })
    expect(await first).toEqual({
      status: 'invalid',
      issues: [{ path: 'n', message: expect.stringContaining('1') }],
    })
    expect(await second).toEqual({ status: 'ok', data: { n: 2 } })
    expect(await tm.call('j', { n: 2, extra: 1 }, { caller: 'test' })).toMatchObject({ status: 'invalid' })
    expect(tm.describe('j')?.inputSchema).toEqual(SCHEMA)
  })

  it('with createToolmark({ fromJsonSchema }) are compiled at registration', async () => {
    const { fromJsonSchema } = (await import('../json-schema.ts')) as typeof JsonSchemaModule
    const compile = vi.fn(fromJsonSchema)
    const { tm } = registry({ fromJsonSchema: compile })
    tm.register(tool(SCHEMA))
    expect(compile).toHaveBeenCalledExactlyOnceWith(SCHEMA)
    expect(await tm.call('j', { n: 0 }, { caller: 'test' })).toMatchObject({ status: 'invalid' })
    expect(await tm.call('j', { n: 3 }, { caller: 'test' })).toEqual({ status: 'ok', data: { n: 3 } })
    // An invalid schema throws from register, as fromJsonSchema itself does.
    expect(() => tm.register({ ...tool(BROKEN), name: 'broken' })).toThrow(TypeError)
    expect(tm.describe('broken')).toBeUndefined()
  })

  it('without the compiler option, an invalid schema answers every call error "Tool failed" (tool_threw)', async () => {
    const { tm, errors } = registry()
    expect(() => tm.register(tool(BROKEN))).not.toThrow()
    for (let i = 0; i < 2; i++) {
      expect(await tm.call('j', {}, { caller: 'test' })).toEqual({ status: 'error', message: 'Tool failed' })
    }
    // Reported once when the compiler rejects it, then each call is a tool_threw.
    expect(errors.map((e) => e.code)).toEqual(['schema_conversion_failed', 'tool_threw', 'tool_threw'])
    expect(errors[0]).toMatchObject({ tool: 'j', message: 'JSON Schema conversion failed for "j"' })
    expect(errors[0]?.cause).toBeInstanceOf(TypeError)
    expect(errors[1]?.cause).toBeInstanceOf(TypeError)
    // Registered after the compiler arrived: compiled at once, and still not thrown from register.
    expect(() => tm.register({ ...tool(BROKEN), name: 'later' })).not.toThrow()
    expect(await tm.call('later', {}, { caller: 'test' })).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
  })

  it('an invalid schema is reported (schema_conversion_failed) as soon as the compiler has it, before any call', async () => {
    const { tm, errors } = registry()
    tm.register(tool(BROKEN))
    await vi.waitFor(() => expect(errors.map((e) => e.code)).toEqual(['schema_conversion_failed']))
    // Registered once the compiler is there: reported on the next microtask, never from register.
    tm.register({ ...tool(BROKEN), name: 'later' })
    expect(errors).toHaveLength(1)
    await Promise.resolve()
    expect(errors.map((e) => [e.code, e.tool])).toEqual([
      ['schema_conversion_failed', 'j'],
      ['schema_conversion_failed', 'later'],
    ])
    // A tool disposed before its schema was compiled is not reported.
    const fresh = registry()
    fresh.tm.register({ ...tool(BROKEN), name: 'gone' }).dispose()
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(fresh.errors).toEqual([])
  })

  it('a call waiting for the compiler is bounded by its signal', async () => {
    const { tm } = registry()
    tm.register(tool(SCHEMA))
    const controller = new AbortController()
    const pending = tm.call('j', { n: 2 }, { caller: 'test', signal: controller.signal })
    controller.abort()
    expect(await pending).toEqual({ status: 'cancelled', by: 'signal' })
  })
})
