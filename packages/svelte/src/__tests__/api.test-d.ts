import type { Manifest, Scope, ToolManifest, ToolResult } from '@toolmark/core'
import type { Readable } from 'svelte/store'
import { describe, expectTypeOf, it } from 'vitest'
import * as z from 'zod'
import {
  type ConfirmQueueStore,
  type PendingConfirmationItem,
  type ReactiveStore,
  type Toolmark,
  useConfirmQueue,
  useCurrentScope,
  useManifest,
  usePendingConfirmations,
  useScope,
  useTool,
  useToolAnchor,
  useToolmark,
} from '../index.ts'

describe('API signatures', () => {
  it('infers run input from the schema, also through a getter', () => {
    useTool({
      name: 'search',
      description: 'Search',
      input: z.object({ query: z.string() }),
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ query: string }>()
        return { status: 'ok', data: input.query }
      },
    })
    useTool(() => ({
      name: 'get',
      description: 'Get',
      input: z.object({ id: z.number() }),
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ id: number }>()
        return undefined
      },
    }))
  })

  it('rejects a run that disagrees with the schema', () => {
    useTool({
      name: 'bad',
      description: 'Bad',
      input: z.object({ id: z.number() }),
      // @ts-expect-error id is a number
      run: (input: { id: string }) => ({ status: 'ok', data: input.id }),
    })
  })

  it('returns Svelte stores with a .current view', () => {
    expectTypeOf(useToolmark()).toEqualTypeOf<Toolmark>()
    expectTypeOf(useScope('settings', { when: () => true }).current).toEqualTypeOf<Scope | null>()
    expectTypeOf(useCurrentScope().current).toEqualTypeOf<Scope | null | undefined>()
    expectTypeOf(useManifest()).toEqualTypeOf<ReactiveStore<Manifest>>()
    expectTypeOf(useManifest()).toMatchTypeOf<Readable<Manifest>>()
    expectTypeOf(useManifest({ detail: 'full' }).current).toEqualTypeOf<Manifest<ToolManifest>>()
    const pending = usePendingConfirmations()
    expectTypeOf(pending).toMatchTypeOf<Readable<readonly PendingConfirmationItem[]>>()
    expectTypeOf(pending.current[0]!.approve()).toEqualTypeOf<Promise<ToolResult>>()
    expectTypeOf(pending.approve('id', { name: 'x' })).toEqualTypeOf<Promise<ToolResult>>()
    expectTypeOf(useConfirmQueue).returns.toEqualTypeOf<ConfirmQueueStore>()
    expectTypeOf(useToolAnchor<HTMLInputElement>().target).returns.toEqualTypeOf<HTMLInputElement | null>()
  })
})
