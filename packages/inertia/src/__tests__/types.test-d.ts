import { router } from '@inertiajs/core'
import { router as reactRouter } from '@inertiajs/react'
import type { Scope } from '@toolmark/core'
import { createToolmark } from '@toolmark/core'
import { describe, expectTypeOf, it } from 'vitest'
import {
  bindInertia,
  connectEcho,
  type InertiaBinding,
  type InertiaRouterLike,
  type NavigationInput,
  navigationTool,
} from '../index.ts'

describe('types', () => {
  it('accepts Inertia’s own routers without a cast', () => {
    expectTypeOf(router).toExtend<InertiaRouterLike>()
    expectTypeOf(reactRouter).toExtend<InertiaRouterLike>()
    expectTypeOf(bindInertia(createToolmark(), { router })).toEqualTypeOf<InertiaBinding>()
  })

  it('scopes are nullable (server rendering)', () => {
    const binding = bindInertia(createToolmark(), { router })
    expectTypeOf(binding.page).toEqualTypeOf<Scope | null>()
    expectTypeOf(binding.layout).toEqualTypeOf<Scope | null>()
  })

  it('the navigation tool infers its input', () => {
    const tool = navigationTool(router)
    expectTypeOf(tool.run).parameter(0).toEqualTypeOf<NavigationInput>()
  })

  it('connectEcho takes an Echo factory and returns its dispose', () => {
    expectTypeOf(connectEcho).returns.toEqualTypeOf<() => void>()
    // @ts-expect-error the echo option is required
    connectEcho(createToolmark(), { router })
  })
})

describe('framework entries', () => {
  it('/react: pageScoped fits createInertiaApp’s resolve; usePageScope is a nullable Scope', async () => {
    const react = await import('../react/index.tsx')
    type ReactResolve = Parameters<typeof import('@inertiajs/react').createInertiaApp>[0] extends infer O
      ? O extends { resolve?: infer R }
        ? R
        : never
      : never
    expectTypeOf(react.pageScoped((_name: string) => ({ default: () => null }))).toExtend<
      NonNullable<ReactResolve>
    >()
    expectTypeOf(react.usePageScope).returns.toEqualTypeOf<Scope | null>()
  })

  it('/vue: pageScoped fits createInertiaApp’s resolve; usePageScope is a ref of a nullable Scope', async () => {
    const vue = await import('../vue/index.ts')
    type VueResolve = Parameters<typeof import('@inertiajs/vue3').createInertiaApp>[0] extends infer O
      ? O extends { resolve?: infer R }
        ? R
        : never
      : never
    expectTypeOf(vue.pageScoped((_name: string) => ({ default: {} }))).toExtend<NonNullable<VueResolve>>()
    expectTypeOf(vue.usePageScope).returns.toExtend<{ readonly value: Scope | null }>()
  })
})
