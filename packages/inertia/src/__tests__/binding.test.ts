import { router } from '@inertiajs/core'
import { createToolmark, ok, type Toolmark } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  bindInertia,
  type InertiaBinding,
  NAVIGATION_CANCELLED,
  NAVIGATION_NO_PAGE,
  NAVIGATION_NOT_ALLOWED,
} from '../index.ts'
import type { InertiaPageLike } from '../types.ts'
import { wait } from './support/helpers.ts'
import { type InertiaTestServer, setPageUrl, startInertiaServer } from './support/inertia-server.ts'

/*
 * The real @inertiajs/core 3.7 router (its XHR client, history and events) in happy-dom, against a
 * small Inertia protocol server on loopback.
 */

let server: InertiaTestServer
let tm: Toolmark
let binding: InertiaBinding
let swaps = 0
let posted = false

const names = () => tm.manifest().tools.map((t) => t.name)

/** Resolves with the page of the next event of `type`. */
const next = (type: 'navigate' | 'success' | 'clientVisit') =>
  new Promise<InertiaPageLike>((resolve) => {
    const off = router.on(type, (event) => {
      off()
      resolve(event.detail.page as InertiaPageLike)
    })
  })

/** Registers one tool in the scope the binding gives `page`, like a page component would. */
const mountPage = (page: { component: string; url?: string }, tool: string) =>
  binding
    .scopeFor({ url: '/', props: {}, ...page })
    ?.register({ name: tool, description: `${tool} on ${page.component}`, run: () => ok() })

beforeAll(async () => {
  server = await startInertiaServer({
    '/': { component: 'Home' },
    '/challenges': { component: 'Challenges/Index', props: { list: [1, 2], stats: { n: 2 } } },
    '/challenges/1': { component: 'Challenges/Show', props: { id: 1 } },
    '/challenges/2': { component: 'Challenges/Show', props: { id: 2 } },
    '/settings': { component: 'Settings' },
    // Not pages of the app: a plain HTML document, and an Inertia error page answered with a 500.
    '/legacy': { html: '<!doctype html><title>Legacy</title><p>Not an Inertia page</p>' },
    '/broken': { component: 'Error', props: { status: 500 }, status: 500 },
    // After a POST the same URL shows another component (a "thank you" step), like a wizard.
    '/form': (method) => {
      if (method === 'POST') {
        posted = true
        return { redirect: '/form' }
      }
      return { component: posted ? 'Form/Done' : 'Form' }
    },
  })
  setPageUrl(`${server.url}/`)
  router.init({
    initialPage: {
      component: 'Home',
      props: { errors: {} },
      url: '/',
      version: '1',
      flash: {},
      rescuedProps: [],
      rememberedState: {},
    },
    resolveComponent: (name: string) => name,
    swapComponent: async () => {
      swaps++
    },
  })
})

afterAll(() => server.close())

let current: Toolmark[] = []
function setup(options: Partial<Parameters<typeof bindInertia>[1]> = {}) {
  tm = createToolmark()
  current.push(tm)
  binding = bindInertia(tm, {
    router,
    initialPage: { component: 'Home', url: '/', props: {} },
    ...options,
  })
  return binding
}

afterEach(async () => {
  binding?.dispose()
  current = []
  // Back to Home for the next test (a real visit, so the router's page matches).
  await new Promise<void>((resolve) => router.visit('/', { onFinish: () => resolve() }))
})

describe('page scopes', () => {
  it('gives the first page a scope and keeps layout tools (the navigation tool) outside it', async () => {
    setup()
    expect(binding.key).toBe('Home')
    mountPage({ component: 'Home' }, 'home.search')
    await wait()
    expect(names()).toEqual(['home.search', 'navigate'])
    expect(binding.page).toBe(binding.scopeFor({ component: 'Home', url: '/', props: {} }))
    expect(binding.layout).not.toBe(binding.page)
  })

  it('swaps the scope on a link visit to another component (navigate)', async () => {
    setup()
    mountPage({ component: 'Home' }, 'home.search')
    const changes: Array<string | undefined> = []
    binding.subscribe(() => changes.push(binding.key))
    const navigated = next('navigate')
    router.visit('/challenges')
    // The next page's components register while they mount, before the event makes it current.
    router.on('beforeUpdate', () => void mountPage({ component: 'Challenges/Index' }, 'challenges.list'))
    expect((await navigated).component).toBe('Challenges/Index')
    await wait()
    expect(binding.key).toBe('Challenges/Index')
    expect(names()).toEqual(['challenges.list', 'navigate'])
    expect(changes).toEqual(['Challenges/Index'])
  })

  it('publishes the page on screen for the devtools registry, and withdraws it on dispose', async () => {
    setup()
    const page = (): unknown => {
      let status: { page?: unknown } | undefined
      tm.use((host) => {
        status = host.statuses().routes as { page?: unknown } | undefined
        return undefined
      })()
      return status?.page
    }
    expect(page()).toBe('Home')
    const navigated = next('navigate')
    router.visit('/challenges')
    await navigated
    await wait()
    expect(page()).toBe('Challenges/Index')
    binding.dispose()
    expect(page()).toBeUndefined()
  })

  it('swaps on a replace: true visit to another component (no navigate event; success)', async () => {
    setup()
    mountPage({ component: 'Home' }, 'home.search')
    let navigates = 0
    const off = router.on('navigate', () => void navigates++)
    const success = next('success')
    router.visit('/settings', { replace: true })
    expect((await success).component).toBe('Settings')
    off()
    await wait()
    expect(navigates).toBe(0)
    expect(binding.key).toBe('Settings')
    expect(names()).toEqual(['navigate'])
  })

  it('swaps on a POST that redirects to the same URL with another component (no navigate event)', async () => {
    posted = false
    setup()
    await new Promise<void>((resolve) => router.visit('/form', { onFinish: () => resolve() }))
    expect(binding.key).toBe('Form')
    mountPage({ component: 'Form' }, 'form.fill')
    await wait()
    expect(names()).toEqual(['form.fill', 'navigate'])
    let navigates = 0
    const off = router.on('navigate', () => void navigates++)
    const success = next('success')
    router.post('/form', { name: 'x' })
    expect((await success).component).toBe('Form/Done')
    off()
    await wait()
    expect(navigates).toBe(0)
    expect(binding.key).toBe('Form/Done')
    expect(names()).toEqual(['navigate'])
  })

  it('swaps on a client-side router.push to another component (clientVisit)', async () => {
    setup()
    mountPage({ component: 'Home' }, 'home.search')
    let others = 0
    const offs = [router.on('success', () => void others++), router.on('navigate', () => void others++)]
    const visited = next('clientVisit')
    // A client-side swap on the same URL: neither navigate nor success fires.
    router.push({ component: 'Drafts', props: { errors: {} } })
    expect((await visited).component).toBe('Drafts')
    for (const off of offs) off()
    await wait()
    expect(others).toBe(0)
    expect(binding.key).toBe('Drafts')
    expect(names()).toEqual(['navigate'])
  })

  it('keeps the scope (and sends no manifest) on partial reloads, preserveState visits and prop updates', async () => {
    setup()
    await new Promise<void>((resolve) => router.visit('/challenges', { onFinish: () => resolve() }))
    const scope = binding.page
    mountPage({ component: 'Challenges/Index' }, 'challenges.list')
    await wait()
    const rev = tm.rev
    let manifests = 0
    tm.subscribe(() => void manifests++)
    await new Promise<void>((resolve) => router.reload({ only: ['stats'], onFinish: () => resolve() }))
    await new Promise<void>((resolve) =>
      router.visit('/challenges?page=2', { preserveState: true, onFinish: () => resolve() }),
    )
    await new Promise<void>((resolve) => router.replaceProp('stats.n', 3, { onFinish: () => resolve() }))
    await wait()
    expect(binding.page).toBe(scope)
    expect(scope?.disposed).toBe(false)
    expect(tm.rev).toBe(rev)
    expect(manifests).toBe(0)
    expect(names()).toEqual(['challenges.list', 'navigate'])
  })

  it('keeps the scope between two records of the same component; a custom key separates them', async () => {
    setup()
    await new Promise<void>((resolve) => router.visit('/challenges/1', { onFinish: () => resolve() }))
    const first = binding.page
    await new Promise<void>((resolve) => router.visit('/challenges/2', { onFinish: () => resolve() }))
    expect(binding.page).toBe(first)
    binding.dispose()

    setup({ key: (page) => `${page.component} ${new URL(page.url, 'http://x').pathname}` })
    await new Promise<void>((resolve) => router.visit('/challenges/1', { onFinish: () => resolve() }))
    const one = binding.page
    await new Promise<void>((resolve) => router.visit('/challenges/2', { onFinish: () => resolve() }))
    expect(binding.page).not.toBe(one)
    expect(one?.disposed).toBe(true)
  })

  it('drops the previous page’s pending confirmations with its scope', async () => {
    tm = createToolmark()
    binding = bindInertia(tm, { router, initialPage: { component: 'Home', url: '/', props: {} } })
    binding.page?.register({
      name: 'delete',
      description: 'Delete',
      hints: { destructive: true },
      run: () => ok(),
    })
    const asked = await tm.call('delete', {}, { caller: 'inapp' })
    expect(asked.status).toBe('needs_confirmation')
    expect(tm.pendingConfirmations()).toHaveLength(1)
    await new Promise<void>((resolve) => router.visit('/settings', { onFinish: () => resolve() }))
    expect(tm.pendingConfirmations()).toHaveLength(0)
    const id = asked.status === 'needs_confirmation' ? asked.confirmId : ''
    expect(await tm.confirmPending(id, { approved: true })).toMatchObject({
      status: 'refused',
      code: 'confirmation_expired',
    })
  })

  it('is inert on the server: no scopes, no subscriptions, no tools', async () => {
    environment.setIsServer(true)
    const server = bindInertia(createToolmark(), { router })
    expect(server.page).toBeNull()
    expect(server.layout).toBeNull()
    expect(server.scopeFor({ component: 'Home', url: '/', props: {} })).toBeNull()
    environment.setIsServer(undefined)
    tm = createToolmark()
    binding = bindInertia(tm, { router, navigation: false })
    expect(tm.manifest().tools).toEqual([])
    server.dispose()
  })

  it('reads the initial page from Inertia 3’s <script data-page="app"> tag', () => {
    document.body.innerHTML = `<div id="app"></div><script data-page="app" type="application/json">${JSON.stringify({ component: 'Challenges/Index', url: '/challenges', props: {} })}</script>`
    setup({ initialPage: undefined as never })
    expect(binding.key).toBe('Challenges/Index')
    document.body.innerHTML = ''
  })

  it('dispose unsubscribes and removes every scope', async () => {
    setup()
    mountPage({ component: 'Home' }, 'home.search')
    await wait()
    binding.dispose()
    await wait()
    expect(names()).toEqual([])
    await new Promise<void>((resolve) => router.visit('/settings', { onFinish: () => resolve() }))
    expect(binding.page).toBeNull()
  })
})

describe('navigation tool', () => {
  it('answers ok with the new page once it is in place', async () => {
    setup()
    const result = await tm.call('navigate', { url: '/challenges' }, { caller: 'inapp' })
    expect(result).toEqual({ status: 'ok', data: { component: 'Challenges/Index', url: '/challenges' } })
    expect(binding.key).toBe('Challenges/Index')
    expect(location.pathname).toBe('/challenges')
  })

  it('refuses, instead of answering ok, when the app cancels the visit in a before listener', async () => {
    setup()
    const off = router.on('before', () => false)
    const before = swaps
    const result = await tm.call('navigate', { url: '/settings' }, { caller: 'inapp' })
    off()
    expect(result).toEqual({ status: 'refused', code: 'not_allowed', message: NAVIGATION_CANCELLED })
    expect(swaps).toBe(before)
    expect(binding.key).toBe('Home')
  })

  it('refuses other origins and URLs outside allow; rejects bad input', async () => {
    setup({ navigation: { allow: (url) => !url.pathname.startsWith('/settings') } })
    for (const url of ['https://evil.example/x', '//evil.example/x', '/settings']) {
      expect(await tm.call('navigate', { url }, { caller: 'inapp' })).toEqual({
        status: 'refused',
        code: 'not_allowed',
        message: NAVIGATION_NOT_ALLOWED,
      })
    }
    expect((await tm.call('navigate', { url: 3 }, { caller: 'inapp' })).status).toBe('invalid')
    expect(binding.key).toBe('Home')
  })

  it('visits the URL it checked: a path starting with // is refused, never resolved as another host', async () => {
    setup()
    const before = server.requests.length
    for (const url of [
      '/.//evil.example/login',
      `${server.url}//evil.example/login`,
      '/\\evil.example/login',
    ]) {
      expect(await tm.call('navigate', { url }, { caller: 'inapp' }), url).toEqual({
        status: 'refused',
        code: 'not_allowed',
        message: NAVIGATION_NOT_ALLOWED,
      })
    }
    expect(server.requests.length).toBe(before)
    expect(location.href).toBe(`${server.url}/`)
    // A full same-origin URL with a query and a hash opens that very URL.
    const result = await tm.call(
      'navigate',
      { url: `${server.url}/challenges?sort=new#top` },
      { caller: 'inapp' },
    )
    expect(result).toEqual({
      status: 'ok',
      data: { component: 'Challenges/Index', url: '/challenges?sort=new#top' },
    })
    expect(server.requests.at(-1)?.path).toBe('/challenges?sort=new')
  })

  it('refuses a URL that answers an HTTP error or no Inertia page, and shows no error modal', async () => {
    setup()
    let appListener = 0
    const off = router.on('httpException', () => void appListener++)
    for (const url of ['/settings%20page', '/legacy', '/broken']) {
      expect(await tm.call('navigate', { url }, { caller: 'inapp' }), url).toEqual({
        status: 'refused',
        code: 'not_allowed',
        message: NAVIGATION_NO_PAGE,
      })
      expect(document.querySelector('dialog'), url).toBeNull() // Inertia's full-screen error modal
      expect(binding.key).toBe('Home')
      expect(location.pathname).toBe('/')
    }
    off()
    expect(appListener).toBe(0) // the tool's own visit answered it; the app's listeners never saw it
    // The page is still usable: the next navigation works.
    expect((await tm.call('navigate', { url: '/settings' }, { caller: 'inapp' })).status).toBe('ok')
  })

  it('offers the pages option as an enum, opens a page by name, and keeps url for other paths', async () => {
    setup({ navigation: { pages: { settings: '/settings', challenges: '/challenges' } } })
    const tool = tm.manifest({ detail: 'full' }).tools.find((t) => t.name === 'navigate')!
    expect(tool.inputSchema).toMatchObject({
      properties: { page: { enum: ['settings', 'challenges'] }, url: { type: 'string' } },
    })
    expect(tool.description).toContain('settings, challenges')
    expect(await tm.call('navigate', { page: 'settings' }, { caller: 'inapp' })).toEqual({
      status: 'ok',
      data: { component: 'Settings', url: '/settings' },
    })
    expect(await tm.call('navigate', { url: '/challenges/1' }, { caller: 'inapp' })).toMatchObject({
      status: 'ok',
      data: { component: 'Challenges/Show' },
    })
    expect(await tm.call('navigate', { page: 'settings page' }, { caller: 'inapp' })).toMatchObject({
      status: 'invalid',
      issues: [{ path: 'page' }],
    })
    expect(await tm.call('navigate', {}, { caller: 'inapp' })).toEqual({
      status: 'invalid',
      issues: [{ path: 'page', message: 'Pass page (one of: settings, challenges) or url' }],
    })
    expect(await tm.call('navigate', { page: 'settings', url: '/x' }, { caller: 'inapp' })).toEqual({
      status: 'invalid',
      issues: [{ path: 'url', message: 'Pass page or url, not both' }],
    })
  })

  it('answers cancelled when another visit interrupts it', async () => {
    setup()
    const pending = tm.call('navigate', { url: '/challenges' }, { caller: 'inapp' })
    await Promise.resolve()
    router.visit('/settings')
    expect(await pending).toEqual({ status: 'cancelled', by: 'signal' })
    await next('success')
  })
})
