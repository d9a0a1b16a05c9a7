import { describe, expect, it } from 'vitest'
import { tick } from '../../__tests__/helpers.ts'
import { isToolmarkError } from '../../errors.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'
import type { Toolmark, ToolmarkConsumer } from '../../types.ts'
import {
  attachConsumers,
  claimToolName,
  createScopeBinding,
  NAVIGATION_NOT_A_PATH,
  NAVIGATION_NOT_ALLOWED,
  publishRoute,
  ROUTES_STATUS,
  resolveNavigation,
} from '../index.ts'

const names = (tm: Toolmark) => tm.manifest().tools.map((t) => t.name)
const tool = (name: string) => ({
  name,
  description: 'Do it',
  hints: { readOnly: true },
  run: () => ok(name),
})

describe('createScopeBinding', () => {
  it('creates the scope on mount, hands it out for its identity only, and disposes it with its tools', () => {
    const tm = createTestToolmark()
    const binding = createScopeBinding(tm)
    let changes = 0
    binding.subscribe(() => changes++)
    binding.update({ name: 'page' }, true)
    expect(binding.current).toBeNull()
    const unmount = binding.mount()
    const scope = binding.current!
    expect(scope.path).toBe('page')
    expect(binding.for({ name: 'page', parent: undefined })).toBe(scope)
    expect(binding.for({ name: 'other', parent: undefined })).toBeNull()
    scope.register(tool('save'))
    expect(names(tm)).toEqual(['page.save'])
    unmount()
    expect(scope.disposed).toBe(true)
    expect(binding.current).toBeNull()
    expect(names(tm)).toEqual([])
    expect(changes).toBe(2)
  })

  it('a new name, parent, transparent or key replaces the scope at once; the same identity keeps it', () => {
    const tm = createTestToolmark()
    const binding = createScopeBinding(tm)
    binding.update({ name: 'a', parent: undefined, key: '1' })
    binding.mount()
    const first = binding.current!
    binding.update({ name: 'a', parent: undefined, key: '1' })
    expect(binding.current).toBe(first)
    binding.update({ name: 'a', parent: undefined, key: '2' })
    expect(first.disposed).toBe(true)
    const second = binding.current!
    expect(second.path).toBe('a')
    binding.update({ name: 'b', parent: undefined, key: '2' })
    expect(second.disposed).toBe(true)
    expect(binding.current!.path).toBe('b')
    binding.update({ name: 'b', parent: undefined, transparent: true, key: '2' })
    expect(binding.current!.path).toBe('')
  })

  it('waits while the parent is null and nests under the parent once it is given', () => {
    const tm = createTestToolmark()
    const parent = tm.scope('app')
    const binding = createScopeBinding(tm)
    binding.update({ name: 'settings', parent: null })
    binding.mount()
    expect(binding.current).toBeNull()
    binding.update({ name: 'settings', parent })
    expect(binding.current!.path).toBe('app.settings')
  })

  it('applies a changed boolean `when` at once, and a function with its latest closure', async () => {
    const tm = createTestToolmark()
    const binding = createScopeBinding(tm)
    binding.update({ name: 'p' }, true)
    binding.mount()
    binding.current!.register(tool('x'))
    expect(names(tm)).toEqual(['p.x'])
    binding.update({ name: 'p' }, false)
    await tick()
    expect(names(tm)).toEqual([])
    let visible = true
    binding.update({ name: 'p' }, () => visible)
    await tick()
    expect(names(tm)).toEqual(['p.x'])
    visible = false
    binding.update({ name: 'p' }, () => visible)
    expect(await tm.call('p.x', {}, { caller: 'test' })).toMatchObject({
      status: 'refused',
      code: 'unknown_tool',
    })
  })

  it('throws invalid_name from mount for a bad name in development', () => {
    const tm = createTestToolmark({ dev: true })
    const binding = createScopeBinding(tm)
    binding.update({ name: 'not a name!' })
    let caught: unknown
    try {
      binding.mount()
    } catch (err) {
      caught = err
    }
    expect(isToolmarkError(caught) && caught.code).toBe('invalid_name')
  })
})

describe('attachConsumers', () => {
  it('attaches now and lets go one microtask later, so a re-attach in the same task keeps one attachment', async () => {
    const tm = createTestToolmark()
    let attached = 0
    let starts = 0
    const consumer: ToolmarkConsumer = () => {
      attached++
      starts++
      return () => {
        attached--
      }
    }
    const release = attachConsumers(tm, [consumer])
    expect(attached).toBe(1)
    release()
    release()
    const again = attachConsumers(tm, [consumer])
    await Promise.resolve()
    await Promise.resolve()
    expect(attached).toBe(1)
    expect(starts).toBe(1)
    again()
    await Promise.resolve()
    expect(attached).toBe(0)
  })
})

describe('claimToolName', () => {
  it('names both owners in development, lets the same owner claim again, and frees the name on release', () => {
    const tm = { dev: true }
    const label = { kind: 'route segment', where: 'segment' }
    const release = claimToolName(tm, 'app.x', 'app/layout', label)
    claimToolName(tm, 'app.x', 'app/layout', label)()
    expect(() => claimToolName(tm, 'app.x', 'app/page', label)).toThrow(
      'Tool "app.x" is registered by route segment "app/layout" and again by route segment "app/page". Rename one of them, or keep it in one segment.',
    )
    release()
    expect(() => claimToolName(tm, 'app.x', 'app/page', label)).not.toThrow()
    expect(() => claimToolName({ dev: false }, 'y', 'a', label)).not.toThrow()
  })
})

describe('resolveNavigation', () => {
  const base = 'https://app.test/challenges'
  const pages = { settings: '/settings' }

  it('resolves a page name or a same-origin url to the absolute URL to visit', () => {
    expect(String(resolveNavigation({ page: 'settings' }, { pages }, base))).toBe('https://app.test/settings')
    expect(String(resolveNavigation({ url: '/challenges/3?tab=notes' }, {}, base))).toBe(
      'https://app.test/challenges/3?tab=notes',
    )
    expect(String(resolveNavigation({ url: '?tab=notes' }, {}, base))).toBe('https://app.test/challenges?tab=notes')
    expect(String(resolveNavigation({ url: 'https://app.test/x' }, {}, base))).toBe('https://app.test/x')
  })

  it('answers invalid for a bare word instead of opening a page named after it', () => {
    const notAPath = { status: 'invalid', issues: [{ path: 'url', message: NAVIGATION_NOT_A_PATH }] }
    expect(resolveNavigation({ url: 'dark theme' }, {}, base)).toEqual(notAPath)
    expect(resolveNavigation({ url: 'settings' }, { pages }, base)).toEqual(notAPath)
    expect(resolveNavigation({ url: '3?tab=notes' }, {}, base)).toEqual(notAPath)
  })

  it('answers invalid for both or neither of page and url', () => {
    expect(resolveNavigation({ page: 'settings', url: '/x' }, { pages }, base)).toEqual({
      status: 'invalid',
      issues: [{ path: 'url', message: 'Pass page or url, not both' }],
    })
    expect(resolveNavigation({}, { pages }, base)).toEqual({
      status: 'invalid',
      issues: [{ path: 'page', message: 'Pass page (one of: settings) or url' }],
    })
  })

  it('refuses another origin, a // path, what allow rejects and a page without a DOM to resolve against as not_allowed', () => {
    const refusal = { status: 'refused', code: 'not_allowed', message: NAVIGATION_NOT_ALLOWED }
    expect(resolveNavigation({ url: 'https://evil.test/' }, {}, base)).toEqual(refusal)
    expect(resolveNavigation({ url: '//evil.test/x' }, {}, base)).toEqual(refusal)
    expect(resolveNavigation({ url: 'https://app.test//evil.test' }, {}, base)).toEqual(refusal)
    expect(resolveNavigation({ url: '/admin' }, { allow: (u) => u.pathname !== '/admin' }, base)).toEqual(
      refusal,
    )
    expect(resolveNavigation({ url: 'https://app.test/x' }, {}, undefined)).toEqual(refusal)
  })
})

describe('publishRoute', () => {
  it('publishes scope owners and the page as the routes status, newest first, and withdraws it when the last goes', () => {
    const tm = createTestToolmark()
    let statuses: Readonly<Record<string, unknown>> = {}
    tm.use((host) => {
      statuses = host.statuses()
      const off = tm.events.on('status', () => {
        statuses = host.statuses()
      })
      return off
    })
    const layout = publishRoute(tm, { scope: 'app', label: 'app/layout' })
    const page = publishRoute(tm, { page: 'Challenges/Index' })
    const settings = publishRoute(tm, { scope: 'app.settings', label: 'app/settings/page' })
    expect(statuses[ROUTES_STATUS]).toEqual({
      state: 'active',
      scopes: { app: 'app/layout', 'app.settings': 'app/settings/page' },
      page: 'Challenges/Index',
    })
    settings()
    settings()
    page()
    expect(statuses[ROUTES_STATUS]).toEqual({ state: 'active', scopes: { app: 'app/layout' } })
    layout()
    expect(statuses[ROUTES_STATUS]).toBeUndefined()
  })
})
