import type { Manifest, Scope, ToolManifest, ToolResult } from '@toolmark/core'
import { describe, expectTypeOf, it } from 'vitest'
import { type Ref, ref, type ShallowRef } from 'vue'
import * as z from 'zod'
import {
  type ConfirmQueueView,
  type PendingConfirmationItem,
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

describe('composable signatures', () => {
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
    const prefix = ref('a')
    useTool(() => ({
      name: `${prefix.value}.get`,
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

  it('types the views', () => {
    expectTypeOf(useToolmark()).toEqualTypeOf<Toolmark>()
    expectTypeOf(useCurrentScope()).toEqualTypeOf<Readonly<Ref<Scope | null | undefined>>>()
    expectTypeOf(useScope('settings', { when: ref(true) })).toEqualTypeOf<
      Readonly<ShallowRef<Scope | null>>
    >()
    expectTypeOf(useManifest().value).toEqualTypeOf<Manifest>()
    expectTypeOf(useManifest({ detail: 'full' }).value).toEqualTypeOf<Manifest<ToolManifest>>()
    const pending = usePendingConfirmations()
    expectTypeOf(pending.items.value).toEqualTypeOf<readonly PendingConfirmationItem[]>()
    expectTypeOf(pending.items.value[0]!.approve()).toEqualTypeOf<Promise<ToolResult>>()
    expectTypeOf(pending.approve('id', { name: 'x' })).toEqualTypeOf<Promise<ToolResult>>()
    expectTypeOf(useConfirmQueue).returns.toEqualTypeOf<ConfirmQueueView>()
    expectTypeOf(useToolAnchor<HTMLInputElement>().target).returns.toEqualTypeOf<HTMLInputElement | null>()
  })
})
