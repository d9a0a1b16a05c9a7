// @vitest-environment node
import { App, router } from '@inertiajs/react'
import { createToolmark, ok } from '@toolmark/core'
import { ToolmarkProvider, useTool } from '@toolmark/react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { bindInertia } from '../index.ts'
import { InertiaToolmark, usePageScope, withPageScope } from '../react/index.tsx'

/* Inertia SSR: the same components rendered to a string in Node (no window, no document). */

function Index({ list }: { list: number[] }) {
  useTool({ name: 'challenges.list', description: 'List', hints: { readOnly: true }, run: () => ok(list) })
  const scope = usePageScope()
  return (
    <h1>
      Index {list.length} {scope === null ? 'no scope' : 'scope'}
    </h1>
  )
}

describe('server rendering', () => {
  it('renders the page with the binding inert: no scopes, no tools, no router subscriptions', () => {
    const tm = createToolmark()
    const binding = bindInertia(tm, {
      router,
      echo: {
        echo: () => {
          throw new Error('no Echo on the server')
        },
      },
    })
    const page = {
      component: 'Challenges/Index',
      props: { errors: {}, list: [1, 2] },
      url: '/challenges',
      version: '1',
      flash: {},
      rescuedProps: [],
      rememberedState: {},
    }
    const html = renderToString(
      <ToolmarkProvider toolmark={tm}>
        <InertiaToolmark binding={binding}>
          <App initialPage={page as never} initialComponent={withPageScope(Index as never) as never} />
        </InertiaToolmark>
      </ToolmarkProvider>,
    )
    expect(html).toContain('Index <!-- -->2<!-- --> <!-- -->no scope')
    expect(binding.page).toBeNull()
    expect(binding.layout).toBeNull()
    expect(tm.manifest().tools).toEqual([])
    binding.dispose()
  })
})
