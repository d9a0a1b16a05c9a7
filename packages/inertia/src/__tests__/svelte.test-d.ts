import { router } from '@inertiajs/svelte'
import type { Scope } from '@toolmark/core'
import { createToolmark } from '@toolmark/core'
import type { ScopeView } from '@toolmark/svelte'
import { describe, expectTypeOf, it } from 'vitest'
import { bindInertia, type InertiaBinding, type InertiaRouterLike } from '../index.ts'
import { setInertiaToolmark, useInertiaBinding, usePageScope, usePageScopeProvider } from '../svelte/index.ts'

describe('/svelte types', () => {
  it('binds @inertiajs/svelte’s router without a cast', () => {
    expectTypeOf(router).toExtend<InertiaRouterLike>()
    expectTypeOf(bindInertia(createToolmark(), { router })).toEqualTypeOf<InertiaBinding>()
  })

  it('setInertiaToolmark takes a binding; the page scope is a view of a nullable Scope that @toolmark/svelte accepts', () => {
    expectTypeOf(setInertiaToolmark).parameters.toEqualTypeOf<[InertiaBinding]>()
    // @ts-expect-error a Toolmark is not a binding
    setInertiaToolmark(createToolmark())
    expectTypeOf(useInertiaBinding).returns.toEqualTypeOf<InertiaBinding>()
    expectTypeOf(usePageScope).returns.toEqualTypeOf<ScopeView>()
    expectTypeOf(usePageScopeProvider).returns.toEqualTypeOf<ScopeView>()
    expectTypeOf<ScopeView['current']>().toEqualTypeOf<Scope | null>()
  })
})
