// @vitest-environment node
import { createToolmark } from '@toolmark/core'
import { environment } from '@toolmark/core/adapter'
import { render } from 'svelte/server'
import { describe, expect, it, vi } from 'vitest'
import Provider from './fixtures/Provider.svelte'
import SsrPage from './fixtures/SsrPage.svelte'

describe('server rendering (svelte/server render)', () => {
  it('renders while registering nothing, attaching nothing and throwing nothing', () => {
    expect(environment.isServer()).toBe(true)
    const tm = createToolmark({ dev: true })
    const consumer = vi.fn(() => undefined)
    const errors = vi.fn()
    tm.events.on('error', errors)
    const subscribe = vi.spyOn(tm, 'subscribe')
    const context = vi.spyOn(tm, 'context')
    const on = vi.spyOn(tm.events, 'on')
    const { body } = render(Provider, { props: { tm, component: SsrPage, consumers: [consumer] } })
    expect(body).toContain('tools: 0')
    expect(body).toContain('scope: no')
    expect(body).toContain('Search</button>')
    expect(tm.manifest().tools).toEqual([])
    expect(tm.rev).toBe(0)
    expect(consumer).not.toHaveBeenCalled()
    expect(subscribe).not.toHaveBeenCalled()
    expect(context).not.toHaveBeenCalled()
    expect(on).not.toHaveBeenCalled()
    expect(errors).not.toHaveBeenCalled()
  })
})
