import { act, render } from '@testing-library/react'
import { type Toolmark, ToolmarkError } from '@toolmark/core'
import { useTool, useToolmark } from '@toolmark/react'
import { useParams } from 'next/navigation'
import { Activity, Component, type ReactNode, StrictMode } from 'react'
import { beforeEach, describe, expect, it } from 'vitest'
import { RouteScope, ToolmarkProvider, tabToolmark, useRouteTool } from '../index.ts'
import { NextRoute, resetRoute, route } from './router.tsx'

beforeEach(resetRoute)

const names = (tm: Toolmark): string[] =>
  tm
    .manifest()
    .tools.map((t) => t.name)
    .sort()

function Tool({ name }: { name: string }): null {
  useRouteTool({ name, description: `Tool ${name}`, hints: { readOnly: true }, run: () => undefined })
  return null
}

function Details(): null {
  const { id } = useParams<{ id: string }>()
  useRouteTool({
    name: 'details',
    description: 'Details',
    hints: { readOnly: true },
    run: () => ({ status: 'ok', data: id }),
  })
  return null
}

function Plain(): null {
  useTool({ name: 'plain', description: 'Plain', run: () => undefined })
  return null
}

let seen: Toolmark | undefined
function Grab(): null {
  seen = useToolmark()
  return null
}

function app(children: ReactNode): ReactNode {
  return (
    <NextRoute>
      <ToolmarkProvider options={{ dev: true }}>
        <Grab />
        {children}
      </ToolmarkProvider>
    </NextRoute>
  )
}

describe.each([false, true])('route scopes (StrictMode %s)', (strict) => {
  const show = (ui: ReactNode) => render(app(ui), { reactStrictMode: strict })

  it('nests layout and page scopes, registers in effects, disposes on leaving the segment', () => {
    const view = show(
      <RouteScope name="dashboard" params={[]}>
        <Tool name="refresh" />
        <RouteScope name="settings">
          <Tool name="save" />
        </RouteScope>
      </RouteScope>,
    )
    const tm = seen!
    expect(names(tm)).toEqual(['dashboard.refresh', 'dashboard.settings.save'])
    view.rerender(
      app(
        <RouteScope name="dashboard" params={[]}>
          <Tool name="refresh" />
          <RouteScope name="billing">
            <Tool name="pay" />
          </RouteScope>
        </RouteScope>,
      ),
    )
    expect(names(tm)).toEqual(['dashboard.billing.pay', 'dashboard.refresh'])
    expect(seen).toBe(tm)
  })

  it('publishes which segment owns each route scope, for the devtools registry, until it unmounts', () => {
    const view = show(
      <RouteScope name="dashboard" params={[]} segment="app/dashboard/layout">
        <RouteScope name="settings" segment="app/dashboard/settings/page">
          <Tool name="save" />
        </RouteScope>
      </RouteScope>,
    )
    const tm = seen!
    const routes = (): unknown => {
      let status: unknown
      tm.use((host) => {
        status = host.statuses().routes
        return undefined
      })()
      return status
    }
    expect(routes()).toEqual({
      state: 'active',
      scopes: { dashboard: 'app/dashboard/layout', 'dashboard.settings': 'app/dashboard/settings/page' },
    })
    view.unmount()
    expect(routes()).toBeUndefined()
  })

  it('a fresh push (new bfcacheId) or a changed param makes a new scope instance; a re-render does not', () => {
    route.params = { id: '1' }
    const ui = (
      <RouteScope name="challenge">
        <Tool name="details" />
      </RouteScope>
    )
    const view = show(ui)
    const tm = seen!
    const rev = tm.rev
    view.rerender(app(ui))
    expect(tm.rev).toBe(rev)
    route.params = { id: '2' }
    view.rerender(app(ui))
    expect(tm.rev).toBeGreaterThan(rev)
    expect(names(tm)).toEqual(['challenge.details'])
    const afterParams = tm.rev
    route.bfcache = 7
    view.rerender(app(ui))
    expect(tm.rev).toBeGreaterThan(afterParams)
    expect(names(tm)).toEqual(['challenge.details'])
  })

  it('a layout scope with params: [] keeps its instance when a child param changes', () => {
    route.params = { id: '1' }
    const ui = (
      <RouteScope name="app" params={[]}>
        <Tool name="navigate" />
      </RouteScope>
    )
    const view = show(ui)
    const rev = seen!.rev
    route.params = { id: '2' }
    view.rerender(app(ui))
    expect(seen!.rev).toBe(rev)
  })

  it('a segment hidden by <Activity> drops its tools and gets them back when shown', () => {
    const ui = (mode: 'visible' | 'hidden') => (
      <>
        <RouteScope name="app" params={[]}>
          <Tool name="navigate" />
        </RouteScope>
        <Activity mode={mode}>
          <RouteScope name="settings">
            <Tool name="updateCard" />
          </RouteScope>
        </Activity>
      </>
    )
    const view = show(ui('visible'))
    const tm = seen!
    expect(names(tm)).toEqual(['app.navigate', 'settings.updateCard'])
    view.rerender(app(ui('hidden')))
    expect(names(tm)).toEqual(['app.navigate'])
    view.rerender(app(ui('visible')))
    expect(names(tm)).toEqual(['app.navigate', 'settings.updateCard'])
  })

  it('tools run the latest render closure (current params)', async () => {
    route.params = { id: '1' }
    const ui = (
      <RouteScope name="challenge" params={[]}>
        <Details />
      </RouteScope>
    )
    const view = show(ui)
    route.params = { id: '2' }
    view.rerender(app(ui))
    expect(await seen!.call('challenge.details', {}, { caller: 'inapp' })).toEqual({
      status: 'ok',
      data: '2',
    })
  })
})

class Catch extends Component<{ children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {}
  static getDerivedStateFromError(error: Error) {
    return { error }
  }
  override render(): ReactNode {
    return this.state.error ? <p data-testid="error">{this.state.error.message}</p> : this.props.children
  }
}

describe('collisions between segments', () => {
  it('a layout tool colliding with a page tool names both segments (development)', () => {
    const errors: unknown[] = []
    const original = console.error
    console.error = () => {}
    let caught: Error | undefined
    class Boundary extends Catch {
      override componentDidCatch(error: Error) {
        caught = error
        errors.push(error)
      }
    }
    try {
      render(
        app(
          <Boundary>
            <RouteScope name="app" params={[]} segment="app/layout">
              <Tool name="whereAmI" />
              <RouteScope name="page" transparent segment="app/settings/page">
                <Tool name="whereAmI" />
              </RouteScope>
            </RouteScope>
          </Boundary>,
        ),
      )
    } finally {
      console.error = original
    }
    expect(caught).toBeInstanceOf(ToolmarkError)
    expect((caught as ToolmarkError).code).toBe('duplicate_name')
    expect(caught?.message).toBe(
      'Tool "app.whereAmI" is registered by route segment "app/layout" and again by route segment "app/settings/page". Rename one of them, or keep it in one segment.',
    )
  })

  it('in production the core reports the collision and keeps the first registration', () => {
    const tm = tabToolmark({})
    const codes: string[] = []
    tm.events.on('error', (event) => codes.push(event.code))
    render(
      <NextRoute>
        <ToolmarkProvider>
          <RouteScope name="app" params={[]} segment="app/layout">
            <Tool name="whereAmI" />
            <RouteScope name="page" transparent segment="app/page">
              <Tool name="whereAmI" />
            </RouteScope>
          </RouteScope>
        </ToolmarkProvider>
      </NextRoute>,
    )
    expect(codes).toEqual(['duplicate_name'])
    expect(names(tm)).toEqual(['app.whereAmI'])
  })

  it('the same name in two sibling segments at different times is fine (a page replaced by another)', () => {
    const ui = (page: string) => (
      <RouteScope name="app" params={[]} transparent segment={page}>
        <Tool name="search" />
      </RouteScope>
    )
    const view = render(app(ui('app/a/page')))
    view.rerender(app(ui('app/b/page')))
    expect(names(seen!)).toEqual(['search'])
  })
})

describe('plain useTool inside a route scope', () => {
  it('registers under the route scope too', () => {
    render(
      <StrictMode>
        {app(
          <RouteScope name="settings">
            <Plain />
          </RouteScope>,
        )}
      </StrictMode>,
    )
    expect(names(seen!)).toEqual(['settings.plain'])
    act(() => {})
  })
})
