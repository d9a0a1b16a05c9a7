import { screen } from '@testing-library/svelte'
import { describe, expect, it } from 'vitest'
import { recordRegistrations } from '../../../../tests/support/registrations.ts'
import Renamed from './fixtures/Renamed.svelte'
import Settings from './fixtures/Settings.svelte'
import WherePage from './fixtures/WherePage.svelte'
import { flush, names, setup } from './utils.ts'

describe('useCurrentScope', () => {
  it('is the scope an ancestor sets, null until it exists, undefined at the root', async () => {
    const { mount } = setup()
    const seen: string[] = []
    mount(WherePage, { seen })
    await flush()
    expect(seen).toEqual(['waiting'])
    expect(screen.getAllByRole('paragraph').map((p) => p.textContent)).toEqual(['profile', 'root'])
  })
})

describe('useScope', () => {
  it("names descendants' tools after the scope and removes them all on navigation away", async () => {
    const { tm, errors, mount } = setup()
    const view = mount(Settings, { open: true })
    await flush()
    expect(names(tm)).toEqual(['settings.profile.rename', 'settings.save'])
    await view.update({ open: false })
    expect(names(tm)).toEqual(['home'])
    await view.update({ open: true })
    expect(names(tm)).toEqual(['settings.profile.rename', 'settings.save'])
    expect(errors).toEqual([])
  })

  it('never registers a scoped tool at the root while the scope is being created', async () => {
    const { tm, mount } = setup()
    const registered = recordRegistrations(tm)
    mount(Settings, { open: true })
    await flush()
    expect(registered.sort()).toEqual(['settings.profile.rename', 'settings.save'])
  })

  it('follows a reactive `when`', async () => {
    const { tm, mount } = setup()
    const view = mount(Settings, { open: true, when: false })
    await flush()
    expect(names(tm)).toEqual([])
    await view.update({ open: true, when: true })
    expect(names(tm)).toEqual(['settings.profile.rename', 'settings.save'])
    await view.update({ open: true, when: false })
    expect(names(tm)).toEqual([])
  })

  it('recreates the scope when a reactive name changes', async () => {
    const { tm, mount } = setup()
    const view = mount(Renamed, { section: 'billing' })
    await flush()
    expect(names(tm)).toEqual(['billing.save'])
    await view.update({ section: 'shipping' })
    expect(names(tm)).toEqual(['shipping.save'])
  })
})

describe('swapping one scoped page for another', () => {
  it("publishes one manifest, with the new page's tools", async () => {
    const { tm, mount } = setup()
    const view = mount(Settings, { open: false })
    await flush()
    const published: string[][] = []
    tm.subscribe(() => published.push(names(tm)))
    await view.update({ open: true })
    expect(published).toEqual([['settings.profile.rename', 'settings.save']])
    published.length = 0
    await view.update({ open: false })
    expect(published).toEqual([['home']])
  })
})
