import type { Scope, ToolDefinition, ToolmarkConsumer } from '@toolmark/core'
import { describe, expectTypeOf, it } from 'vitest'
import * as z from 'zod'
import {
  type Connect,
  type NavigationResult,
  type NavigationSchema,
  navigationTool,
  type RouteScopeProps,
  useRouteScope,
  useRouteTool,
} from '../index.ts'
import { type BridgeSettings, bridgeSettings, type ToolResult } from '../server.ts'

describe('@toolmark/next types', () => {
  it('useRouteTool infers the input of run from the schema', () => {
    useRouteTool({
      name: 'rename',
      description: 'Rename',
      input: z.object({ name: z.string() }),
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ name: string }>()
      },
    })
  })

  it('navigationTool narrows the page to the configured names', () => {
    const tool = navigationTool(
      { push: () => {}, replace: () => {} },
      { pages: { challenges: '/challenges', settings: '/settings' } },
    )
    expectTypeOf(tool).toEqualTypeOf<
      ToolDefinition<NavigationSchema<'challenges' | 'settings'>, NavigationResult<'challenges' | 'settings'>>
    >()
    expectTypeOf(tool.run)
      .parameter(0)
      .toEqualTypeOf<{ page?: 'challenges' | 'settings'; url?: string; replace?: boolean }>()
  })

  it('useRouteScope returns a scope or null; RouteScope takes a name', () => {
    expectTypeOf(useRouteScope('settings', { params: ['id'] })).toEqualTypeOf<Scope | null>()
    expectTypeOf<RouteScopeProps>().toHaveProperty('name').toEqualTypeOf<string>()
    // @ts-expect-error params are names of route params
    useRouteScope('settings', { params: 'id' })
  })

  it('connect returns consumers now or later', () => {
    expectTypeOf<Connect>().returns.toEqualTypeOf<
      readonly ToolmarkConsumer[] | Promise<readonly ToolmarkConsumer[]>
    >()
  })

  it('the server entry exports types and bridgeSettings only', () => {
    expectTypeOf(bridgeSettings).returns.toEqualTypeOf<BridgeSettings>()
    expectTypeOf<ToolResult>().toHaveProperty('status')
  })
})
