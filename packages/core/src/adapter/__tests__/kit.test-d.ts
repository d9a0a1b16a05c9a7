import { describe, expectTypeOf, it } from 'vitest'
import type { ConfirmQueue } from '../../confirm/queue.ts'
import type {
  Manifest,
  PendingConfirmation,
  Scope,
  ToolDefinition,
  Toolmark,
  ToolResult,
} from '../../types.ts'
import {
  type BindingScope,
  type ConfirmRequestItem,
  createManifestView,
  createPendingView,
  createQueueView,
  createToolBinding,
  type ExternalSource,
  type PendingConfirmationItem,
  readManifest,
  structuralKey,
  type ToolBinding,
} from '../index.ts'

declare const tm: Toolmark
declare const queue: ConfirmQueue

describe('@toolmark/core/adapter types', () => {
  it('types the tool binding', () => {
    const binding = createToolBinding(tm)
    expectTypeOf(binding).toEqualTypeOf<ToolBinding>()
    expectTypeOf(binding.mount).returns.toEqualTypeOf<() => void>()
    expectTypeOf(binding.key).toEqualTypeOf<string>()
    expectTypeOf<BindingScope>().toEqualTypeOf<Scope | null | undefined>()
    expectTypeOf(binding.update).parameter(0).toEqualTypeOf<ToolDefinition>()
    expectTypeOf(structuralKey).returns.toEqualTypeOf<string>()
  })

  it('types the views as external sources of answerable items', () => {
    const pending = createPendingView(tm)
    expectTypeOf(pending).toExtend<ExternalSource<readonly PendingConfirmationItem[]>>()
    expectTypeOf(pending.getSnapshot()[0]!).toExtend<PendingConfirmation>()
    expectTypeOf(pending.getSnapshot()[0]!.approve).returns.toEqualTypeOf<Promise<ToolResult>>()
    expectTypeOf(pending.approve).toBeCallableWith('c1')
    expectTypeOf(pending.approve).toBeCallableWith('c1', { name: 'edited' })
    expectTypeOf(pending.reject).toBeCallableWith('c1', 'reason')
    const requests = createQueueView(queue)
    expectTypeOf(requests.getSnapshot()).toEqualTypeOf<readonly ConfirmRequestItem[]>()
    expectTypeOf(requests.reject).returns.toEqualTypeOf<boolean>()
    // @ts-expect-error inline requests take no reason
    requests.reject('c1', 'reason')
    expectTypeOf(createManifestView(tm, { caller: 'webmcp' }).getSnapshot()).toEqualTypeOf<Manifest>()
    expectTypeOf(readManifest).toBeCallableWith(tm, { detail: 'full' })
  })
})
