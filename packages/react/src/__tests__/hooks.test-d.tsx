import type { Manifest, Scope, ToolManifest, ToolResult } from '@toolmark/core'
import { describe, expectTypeOf, it } from 'vitest'
import * as z from 'zod'
import {
  type ConfirmQueueView,
  type PendingConfirmationItem,
  type ToolAnchor,
  type Toolmark,
  useConfirmQueue,
  useManifest,
  usePendingConfirmations,
  useScope,
  useTool,
  useToolAnchor,
  useToolmark,
} from '../index.ts'

describe('hook signatures', () => {
  it('infers run input from the schema', () => {
    useTool({
      name: 'search',
      description: 'Search',
      input: z.object({ query: z.string(), limit: z.number().optional() }),
      summary: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ query: string; limit?: number | undefined }>()
        return input.query
      },
      run: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ query: string; limit?: number | undefined }>()
        expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>()
        return { status: 'ok', data: input.query }
      },
    })
  })

  it('gives run unknown input without a schema, and rejects wrong input use', () => {
    useTool({
      name: 'ping',
      description: 'Ping',
      run: (input) => {
        expectTypeOf(input).toBeUnknown()
        return undefined
      },
    })
    useTool({
      name: 'bad',
      description: 'Bad',
      input: z.object({ id: z.number() }),
      // @ts-expect-error id is a number
      run: (input: { id: string }) => ({ status: 'ok', data: input.id }),
    })
  })

  it('returns void from useTool and types the options', () => {
    const def = { name: 'x', description: 'x', run: () => undefined }
    expectTypeOf(useTool(def)).toBeVoid()
    useTool(def, { scope: null })
    // @ts-expect-error scope must be a Scope
    useTool(def, { scope: 'settings' })
  })

  it('types the views', () => {
    expectTypeOf(useToolmark()).toEqualTypeOf<Toolmark>()
    expectTypeOf(useScope('settings', { when: () => true })).toEqualTypeOf<Scope | null>()
    expectTypeOf(useManifest()).toEqualTypeOf<Manifest>()
    expectTypeOf(useManifest({ detail: 'full' })).toEqualTypeOf<Manifest<ToolManifest>>()
    const pending = usePendingConfirmations()
    expectTypeOf(pending.items).toEqualTypeOf<readonly PendingConfirmationItem[]>()
    const item = pending.items[0]!
    expectTypeOf(item.approve()).toEqualTypeOf<Promise<ToolResult>>()
    expectTypeOf(item.approve({ name: 'edited' })).toEqualTypeOf<Promise<ToolResult>>()
    expectTypeOf(item.expiresAt).toBeNumber()
    expectTypeOf(item.destructive).toBeBoolean()
    expectTypeOf(pending.approve('id')).toEqualTypeOf<Promise<ToolResult>>()
    expectTypeOf(pending.reject('id', 'not now')).toEqualTypeOf<Promise<ToolResult>>()
    // @ts-expect-error a confirmId is required
    pending.reject()
    expectTypeOf(useConfirmQueue).returns.toEqualTypeOf<ConfirmQueueView>()
    expectTypeOf(useToolAnchor<HTMLButtonElement>()).toEqualTypeOf<ToolAnchor<HTMLButtonElement>>()
    expectTypeOf(useToolAnchor().target).returns.toEqualTypeOf<HTMLElement | null>()
  })
})
