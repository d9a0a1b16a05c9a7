import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createConfirmQueue } from '../../confirm/queue.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { ToolResult } from '../../types.ts'
import { createManifestView, createPendingView, createQueueView, readManifest } from '../index.ts'

const publish = {
  name: 'publish',
  description: 'Publish',
  input: z.object({ name: z.string() }),
  hints: { consequential: true },
  run: ({ name }: { name: string }) => ok({ published: name }),
}

describe('createPendingView', () => {
  it('keeps the snapshot and each item while unchanged, and notifies on every change of the set', async () => {
    const tm = createTestToolmark()
    tm.register(publish)
    const view = createPendingView(tm)
    let changes = 0
    const off = view.subscribe(() => changes++)
    expect(view.getSnapshot()).toEqual([])
    await tm.call('publish', { name: 'a' }, { caller: 'inapp' })
    const one = view.getSnapshot()
    expect(view.getSnapshot()).toBe(one)
    await tm.call('publish', { name: 'b' }, { caller: 'inapp' })
    const two = view.getSnapshot()
    expect(two).not.toBe(one)
    expect(two[0]).toBe(one[0])
    expect(two.map((i) => i.input)).toEqual([{ name: 'a' }, { name: 'b' }])
    expect(await two[0]?.approve({ name: 'edited' })).toEqual({ status: 'ok', data: { published: 'edited' } })
    expect(await view.reject(two[1]?.confirmId ?? '', 'no')).toEqual({ status: 'cancelled', by: 'operator' })
    expect(view.getSnapshot()).toEqual([])
    expect(changes).toBe(4)
    off()
    await tm.call('publish', { name: 'c' }, { caller: 'inapp' })
    expect(changes).toBe(4)
    expect((await view.approve('nope')).status).toBe('refused')
  })
})

describe('createQueueView', () => {
  it('binds answers to open requests with stable identities', async () => {
    const queue = createConfirmQueue()
    const tm = createTestToolmark({ confirm: queue.handler })
    tm.register(publish)
    const view = createQueueView(queue)
    let changes = 0
    view.subscribe(() => changes++)
    const first = tm.call('publish', { name: 'a' }, { caller: 'tour' })
    const second = tm.call('publish', { name: 'b' }, { caller: 'tour' })
    await new Promise((resolve) => setTimeout(resolve, 0))
    const [a, b] = view.getSnapshot()
    expect(view.getSnapshot()).toBe(view.getSnapshot())
    expect(a?.approve({ name: 'edited' })).toBe(true)
    expect(view.getSnapshot()[0]).toBe(b)
    expect(view.reject(b?.confirmId ?? '')).toBe(true)
    expect(view.reject(b?.confirmId ?? '')).toBe(false)
    const results: ToolResult[] = await Promise.all([first, second])
    expect(results.map((r) => r.status)).toEqual(['ok', 'cancelled'])
    expect(changes).toBe(4)
  })
})

describe('createManifestView', () => {
  it('keeps one snapshot per revision and options, and notifies once per revision', async () => {
    const tm = createTestToolmark({ policy: { webmcp: ['readOnly'] } })
    const view = createManifestView(tm, { caller: 'webmcp' })
    const full = createManifestView(tm, { detail: 'full' })
    const revs: number[] = []
    view.subscribe(() => revs.push(tm.rev))
    const before = view.getSnapshot()
    expect(view.getSnapshot()).toBe(before)
    tm.register(publish)
    tm.register({ ...publish, name: 'read', hints: { readOnly: true } })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(revs).toEqual([2])
    const after = view.getSnapshot()
    expect(after).not.toBe(before)
    expect(view.getSnapshot()).toBe(after)
    expect(after.tools.map((t) => t.name)).toEqual(['read'])
    expect(full.getSnapshot()).toBe(full.getSnapshot())
    expect(full.getSnapshot().tools[0]).toMatchObject({ name: 'publish', inputSchema: { type: 'object' } })
    expect(readManifest(tm)).toBe(tm.manifest())
  })
})
