import { App, router, useForm } from '@inertiajs/react'
import { act, render, screen } from '@testing-library/react'
import { createToolmark, ok, type Toolmark } from '@toolmark/core'
import { ToolmarkProvider, usePendingConfirmations, useTool } from '@toolmark/react'
import { type ReactNode, StrictMode } from 'react'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bindInertia, type InertiaBinding } from '../index.ts'
import { InertiaToolmark, pageScoped, usePageScope, withPageScope } from '../react/index.tsx'
import { settleInAct } from './support/helpers.ts'
import { type InertiaTestServer, setPageUrl, startInertiaServer } from './support/inertia-server.ts'

/*
 * The real @inertiajs/react 3.7 <App> (and its router) in happy-dom with React 19, against a small
 * Inertia protocol server on loopback; tools registered through @toolmark/react's public hooks.
 */

let server: InertiaTestServer
const submitted: unknown[] = []

function Layout({ children }: { children?: ReactNode }) {
  useTool({ name: 'chat.clear', description: 'Clear the chat', run: () => ok() })
  const { items } = usePendingConfirmations()
  return (
    <div>
      {items.map((item) => (
        <button key={item.confirmId} type="button" onClick={() => void item.approve()}>
          Approve {item.summary}
        </button>
      ))}
      {children}
    </div>
  )
}

let deleted = 0
function Index({ list }: { list: number[] }) {
  useTool({
    name: 'challenges.list',
    description: 'List challenges',
    hints: { readOnly: true },
    run: () => ok(list),
  })
  useTool({
    name: 'challenges.delete',
    description: 'Delete a challenge',
    summary: 'Delete challenge 1',
    hints: { destructive: true },
    run: () => {
      deleted++
      return ok()
    },
  })
  return <h1>Index {list.length}</h1>
}
Index.layout = (page: ReactNode) => <Layout>{page}</Layout>

function Show({ id }: { id: number }) {
  const form = useForm({ title: '' })
  useTool({
    name: 'challenge.rename',
    description: 'Rename the challenge',
    run: async (input: unknown) =>
      new Promise<ReturnType<typeof ok>>((resolve) => {
        form.transform(() => ({ title: String((input as { title?: unknown }).title ?? '') }))
        form.post(`/challenges/${id}`, {
          onSuccess: () => resolve(ok()),
          onError: () => resolve(ok('invalid')),
        })
      }),
  })
  return <h1>Show {id}</h1>
}
Show.layout = (page: ReactNode) => <Layout>{page}</Layout>

function Probe() {
  const scope = usePageScope()
  return <output data-testid="scope">{scope ? 'page' : 'none'}</output>
}
function Bare() {
  return <Probe />
}

const pages: Record<string, unknown> = {
  'Challenges/Index': Index,
  'Challenges/Show': { default: Show },
  Bare,
}

beforeAll(async () => {
  server = await startInertiaServer({
    '/challenges': { component: 'Challenges/Index', props: { list: [1, 2] } },
    '/challenges/1': (method) => {
      if (method !== 'POST') return { component: 'Challenges/Show', props: { id: 1 } }
      submitted.push(method)
      return { redirect: '/challenges/1' }
    },
    '/bare': { component: 'Bare' },
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

function mount(tm: Toolmark, binding: InertiaBinding) {
  const resolve = pageScoped((name: string) => pages[name] as never)
  return render(
    <StrictMode>
      <ToolmarkProvider toolmark={tm}>
        <InertiaToolmark binding={binding}>
          <App
            initialPage={initialPage as never}
            initialComponent={withPageScope(Index as never) as never}
            resolveComponent={resolve as never}
          />
        </InertiaToolmark>
      </ToolmarkProvider>
    </StrictMode>,
  )
}

const names = (tm: Toolmark) => tm.manifest().tools.map((t) => t.name)

describe('@toolmark/inertia/react', () => {
  it('page tools live in the page scope, layout tools in the layout scope; a visit swaps only the page’s', async () => {
    const tm = createToolmark()
    const binding = bindInertia(tm, { router, initialPage })
    mount(tm, binding)
    await settleInAct(act)
    expect(names(tm)).toEqual(['challenges.delete', 'challenges.list', 'chat.clear', 'navigate'])
    const indexScope = binding.page

    await act(() => tm.call('navigate', { url: '/challenges/1' }, { caller: 'inapp' }))
    await settleInAct(act)
    expect(screen.getByRole('heading').textContent).toBe('Show 1')
    expect(names(tm)).toEqual(['challenge.rename', 'chat.clear', 'navigate'])
    expect(indexScope?.disposed).toBe(true)
    expect(binding.page).not.toBe(indexScope)
    // The page's tools are in the page scope, the layout's are not.
    act(() => binding.page?.dispose())
    await settleInAct(act)
    expect(names(tm)).toEqual(['chat.clear', 'navigate'])
    binding.dispose()
  })

  it('a deferred confirmation card from a page tool approves through @toolmark/react', async () => {
    await act(
      () => new Promise<void>((resolve) => router.visit('/challenges', { onFinish: () => resolve() })),
    )
    const tm = createToolmark()
    const binding = bindInertia(tm, { router, initialPage })
    mount(tm, binding)
    await settleInAct(act)
    const asked = await act(() => tm.call('challenges.delete', {}, { caller: 'inapp' }))
    expect(asked.status).toBe('needs_confirmation')
    await settleInAct(act)
    await act(() => screen.getByRole('button', { name: 'Approve Delete challenge 1' }).click())
    await settleInAct(act)
    expect(deleted).toBe(1)
    expect(screen.queryByRole('button')).toBeNull()
    binding.dispose()
  })

  it('a tool built on Inertia’s useForm submits through the router', async () => {
    await act(
      () => new Promise<void>((resolve) => router.visit('/challenges/1', { onFinish: () => resolve() })),
    )
    const tm = createToolmark()
    const binding = bindInertia(tm, { router, initialPage })
    mount(tm, binding)
    await settleInAct(act)
    await act(
      () => new Promise<void>((resolve) => router.visit('/challenges/1', { onFinish: () => resolve() })),
    )
    await settleInAct(act)
    expect(names(tm)).toContain('challenge.rename')
    const result = await act(() => tm.call('challenge.rename', { title: 'Robotics' }, { caller: 'inapp' }))
    expect(result).toEqual({ status: 'ok' })
    expect(submitted).toEqual(['POST'])
    const post = server.requests.find((r) => r.method === 'POST')
    expect(post?.headers['x-inertia']).toBe('true')
    binding.dispose()
  })

  it('usePageScope is null without a page scope (server binding)', async () => {
    const { environment } = await import('@toolmark/core/adapter')
    environment.setIsServer(true)
    const tm = createToolmark()
    const binding = bindInertia(tm, { router })
    environment.setIsServer(undefined)
    render(
      <ToolmarkProvider toolmark={tm}>
        <InertiaToolmark binding={binding}>
          <App
            initialPage={{ ...initialPage, component: 'Bare', url: '/bare' } as never}
            initialComponent={Bare as never}
            resolveComponent={(() => Bare) as never}
          />
        </InertiaToolmark>
      </ToolmarkProvider>,
    )
    expect(screen.getByTestId('scope').textContent).toBe('none')
  })
})
