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
