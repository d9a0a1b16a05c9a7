import { router } from '@inertiajs/svelte'
import { fireEvent, render, screen } from '@testing-library/svelte'
import { createToolmark, ok } from '@toolmark/core'
import { tick } from 'svelte'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bindInertia } from '../index.ts'
import { NO_BINDING } from '../svelte/index.ts'
import { calls } from './fixtures/svelte/calls.ts'
import Index from './fixtures/svelte/Index.svelte'
import Layout from './fixtures/svelte/Layout.svelte'
import Orphan from './fixtures/svelte/Orphan.svelte'
import Root from './fixtures/svelte/Root.svelte'
import Show from './fixtures/svelte/Show.svelte'
import { settle } from './support/helpers.ts'
import { type InertiaTestServer, setPageUrl, startInertiaServer } from './support/inertia-server.ts'

/*
 * The real @inertiajs/svelte 3.7 <App> (and its router) in happy-dom with Svelte 5, against the small
 * Inertia protocol server; tools registered through @toolmark/svelte's public runes helpers.
 */

let server: InertiaTestServer

const pages = {
  'Challenges/Index': { default: Index, layout: Layout },
  'Challenges/Show': { default: Show, layout: Layout },
}

beforeAll(async () => {
  server = await startInertiaServer({
    '/challenges': { component: 'Challenges/Index', props: { list: [1, 2] } },
    '/challenges/1': { component: 'Challenges/Show', props: { id: 1 } },
  })
  setPageUrl(`${server.url}/challenges`)
})
afterAll(() => server.close())

const initialPage = {
  component: 'Challenges/Index',
  props: { errors: {}, list: [1, 2] },
  url: '/challenges',
  version: '1',
  flash: {},
  rescuedProps: [],
  rememberedState: {},
}

describe('@toolmark/inertia/svelte', () => {
  it('page tools live in the page scope, layout tools in the layout scope; a visit swaps only the page’s; cards approve', async () => {
    const tm = createToolmark()
    const binding = bindInertia(tm, { router, initialPage })
    render(Root, {
      props: {
        tm,
        binding,
        app: {
          initialPage: initialPage as never,
          initialComponent: pages['Challenges/Index'],
          resolveComponent: (name: string) => pages[name as keyof typeof pages],
        },
      },
    })
    await settle(tick)
    const names = () => tm.manifest().tools.map((t) => t.name)
    expect(screen.getByRole('heading').textContent).toBe('Index 2')
    expect(names()).toEqual(['challenges.delete', 'challenges.list', 'chat.clear', 'navigate'])

    const asked = await tm.call('challenges.delete', {}, { caller: 'inapp' })
    expect(asked.status).toBe('needs_confirmation')
    await settle(tick)
    await fireEvent.click(screen.getByRole('button', { name: 'Approve Delete challenge 1' }))
    await settle(tick)
    expect(calls.deleted).toBe(1)

    const index = binding.page
    expect(await tm.call('navigate', { url: '/challenges/1' }, { caller: 'inapp' })).toMatchObject({
      status: 'ok',
    })
    await settle(tick)
    expect(screen.getByRole('heading').textContent).toBe('Show 1')
    expect(names()).toEqual(['challenge.read', 'chat.clear', 'navigate'])
    expect(index?.disposed).toBe(true)
    expect(await tm.call('challenge.read', {}, { caller: 'inapp' })).toEqual(ok(1))
    binding.page?.dispose()
    await settle(tick)
    expect(names()).toEqual(['chat.clear', 'navigate'])
    binding.dispose()
  })

  it('a page scope without setInertiaToolmark above it throws the documented message', () => {
    expect(() => render(Orphan)).toThrow(NO_BINDING)
  })
})
