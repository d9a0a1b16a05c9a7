import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { tick } from '../../__tests__/helpers.ts'
import { isToolmarkError } from '../../errors.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { AnySchema, ToolDefinition, Toolmark } from '../../types.ts'
import { createToolBinding, structuralKey } from '../index.ts'

type Def = ToolDefinition<AnySchema | undefined, unknown>
const names = (tm: Toolmark) => tm.manifest().tools.map((t) => t.name)
const def = (name: string, data: unknown = name, extra: Partial<Def> = {}): Def => ({
  name,
  description: 'Do it',
  hints: { readOnly: true },
  run: () => ok(data),
  ...extra,
})

describe('structuralKey', () => {
  it('is equal for rebuilt schemas and hint literals of the same value, and new closures', () => {
    const a = { ...def('x'), input: z.object({ q: z.string() }), hints: { readOnly: true } }
    const b = { ...def('x', 1), input: z.object({ q: z.string() }), hints: { readOnly: true } }
    expect(structuralKey(a)).toBe(structuralKey(b))
  })

  it('differs for a new name, description, title, hint, schema shape or optional callback', () => {
    const base = def('x')
    const key = structuralKey(base)
    for (const changed of [
      def('y'),
      { ...base, description: 'Other' },
      { ...base, title: 'X' },
      { ...base, hints: { destructive: true } },
      { ...base, input: z.object({ q: z.number() }) },
      { ...base, state: () => 1 },
      { ...base, changes: () => [] },
      { ...base, mode: 'stepwise' as const },
      { ...base, sensitivePaths: ['card.cvc'] },
    ]) {
      expect(structuralKey(changed)).not.toBe(key)
    }
  })
})

describe('createToolBinding', () => {
  it('forwards every field of the definition: changes, mode, undoable and the latest closures', async () => {
    const tm = createTestToolmark()
    const binding = createToolBinding(tm)
    const definition = (after: string): Def => ({
      ...def('wizard.submit', after),
      hints: { consequential: true },
      mode: 'stepwise',
      undoable: true,
      summary: `Rename to ${after}`,
      changes: () => [{ path: 'title', before: 'Old', after }],
      snapshot: () => after,
    })
    binding.update(definition('First'), undefined)
    binding.mount()
    binding.update(definition('Second'), undefined)
    expect(tm.manifest().tools.map((t) => t.mode)).toEqual(['stepwise'])
    const asked = await tm.call('wizard.submit', {}, { caller: 'inapp' })
    expect(asked).toMatchObject({
      status: 'needs_confirmation',
      summary: 'Rename to Second',
      changes: [{ path: 'title', before: 'Old', after: 'Second' }],
    })
    expect(tm.pendingConfirmations()[0]).toMatchObject({
      undoable: true,
      changes: [{ path: 'title', before: 'Old', after: 'Second' }],
    })
  })

  it('calls the latest closures on the definition they came with', async () => {
    const tm = createTestToolmark()
    const binding = createToolBinding(tm)
    const tool = (data: string) => ({
      ...def('x'),
      data,
      run(this: { data: string }) {
        return ok(this.data)
      },
    })
    binding.update(tool('first'), undefined)
    binding.mount()
    binding.update(tool('second'), undefined)
    expect(await tm.call('x', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'second' })
  })

  it('registers on mount, keeps one registration across updates, and disposes on cleanup', async () => {
    const tm = createTestToolmark()
    const binding = createToolBinding(tm)
    binding.update(def('x', 1), undefined)
    expect(names(tm)).toEqual([])
    const cleanup = binding.mount()
    expect(names(tm)).toEqual(['x'])
    const rev = tm.rev
    binding.update({ ...def('x', 2), input: z.object({}) }, undefined)
    binding.update({ ...def('x', 3), input: z.object({}) }, undefined)
    expect(tm.rev).toBe(rev + 2) // the schema appeared once; the second equal one changes nothing
    expect(await tm.call('x', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 3 })
    cleanup()
    cleanup()
    expect(names(tm)).toEqual([])
    expect(binding.key).toBe(structuralKey({ ...def('x', 3), input: z.object({}) }))
  })

  it('waits while the scope is null and follows the scope it is given', () => {
    const tm = createTestToolmark()
    const binding = createToolBinding(tm)
    binding.update(def('x'), null)
    const cleanup = binding.mount()
    expect(names(tm)).toEqual([])
    const scope = tm.scope('board')
    binding.update(def('x'), scope)
    expect(names(tm)).toEqual(['board.x'])
    binding.update(def('x'), undefined)
    expect(names(tm)).toEqual(['x'])
    cleanup()
    expect(names(tm)).toEqual([])
  })

  it('ignores a cleanup from an earlier mount (StrictMode remounts)', () => {
    const tm = createTestToolmark()
    const binding = createToolBinding(tm)
    binding.update(def('x'), undefined)
    const first = binding.mount()
    first()
    const second = binding.mount()
    first()
    expect(names(tm)).toEqual(['x'])
    second()
    expect(names(tm)).toEqual([])
  })

  it('registers a taken name once it frees (production), reporting duplicate_name once', async () => {
    const tm = createTestToolmark({ dev: false })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    const holder = tm.register(def('x', 'first'))
    const binding = createToolBinding(tm)
    binding.update(def('x', 'second'), undefined)
    const cleanup = binding.mount()
    tm.register(def('other'))
    await tick()
    expect(errors).toEqual(['duplicate_name'])
    expect(await tm.call('x', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'first' })
    holder.dispose()
    await tick()
    expect(await tm.call('x', {}, { caller: 'inapp' })).toEqual({ status: 'ok', data: 'second' })
    expect(errors).toEqual(['duplicate_name'])
    cleanup()
    expect(names(tm)).toEqual(['other'])
  })

  it('stops waiting when unmounted or updated to a free name', async () => {
    const tm = createTestToolmark({ dev: false })
    const holder = tm.register(def('x', 'first'))
    const binding = createToolBinding(tm)
    binding.update(def('x', 'second'), undefined)
    const cleanup = binding.mount()
    cleanup()
    holder.dispose()
    await tick()
    expect(names(tm)).toEqual([])
    tm.register(def('x', 'third'))
    const renamed = createToolBinding(tm)
    renamed.update(def('x'), undefined)
    renamed.mount()
    renamed.update(def('y'), undefined)
    expect(names(tm)).toEqual(['x', 'y'])
  })

  it('waits for an llmName clash to clear without reporting it again on each revision', async () => {
    const tm = createTestToolmark({ dev: false })
    const errors: string[] = []
    tm.events.on('error', (e) => errors.push(e.code))
    const holder = tm.register(def('a__b'))
    const binding = createToolBinding(tm)
    binding.update(def('b'), tm.scope('a'))
    binding.mount()
    tm.register(def('other'))
    await tick()
    expect(errors).toEqual(['duplicate_name'])
    holder.dispose()
    await tick()
    expect(names(tm)).toEqual(['a.b', 'other'])
  })

  it('throws duplicate_name in development and leaves nothing behind', () => {
    const tm = createTestToolmark()
    tm.register(def('x'))
    const binding = createToolBinding(tm)
    binding.update(def('x', 'second'), undefined)
    let thrown: unknown
    try {
      binding.mount()
    } catch (err) {
      thrown = err
    }
    expect(isToolmarkError(thrown) && thrown.code).toBe('duplicate_name')
    expect(names(tm)).toEqual(['x'])
    // A mount that threw handed out no cleanup, so a later update must not register anything.
    binding.update(def('y'), undefined)
    expect(names(tm)).toEqual(['x'])
  })
})
