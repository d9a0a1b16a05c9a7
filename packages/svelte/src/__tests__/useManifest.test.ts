import { screen } from '@testing-library/svelte'
import type { Manifest } from '@toolmark/core'
import { describe, expect, it } from 'vitest'
import ManifestPage from './fixtures/ManifestPage.svelte'
import { flush, setup } from './utils.ts'

const items = () => screen.queryAllByRole('listitem').map((li) => li.textContent)

describe('useManifest ($manifest and .current)', () => {
  it('updates once per revision', async () => {
    const { tm, mount } = setup()
    const seen: Manifest[] = []
    const view = mount(ManifestPage, { count: 0, seen })
    await flush()
    expect(items()).toEqual(['write'])
    await view.update({ count: 3, seen })
    await flush()
    expect(items()).toEqual(['t0', 't1', 't2', 'write'])
    // Distinct snapshots: the first read, one for the first registration, one for three at once.
    expect([...new Set(seen)].map((m) => m.rev)).toEqual([0, 1, tm.rev])
    expect(tm.rev).toBe(4)
  })

  it('filters for a caller', async () => {
    const { mount } = setup({ policy: { webmcp: ['readOnly'] } })
    mount(ManifestPage, { count: 1, caller: 'webmcp' })
    await flush()
    expect(items()).toEqual(['t0'])
  })

  it('stops listening to the core when the component is destroyed', async () => {
    const { tm, mount } = setup()
    const subscribe = tm.subscribe.bind(tm)
    let active = 0
    tm.subscribe = (listener) => {
      active++
      const off = subscribe(listener)
      return () => {
        active--
        off()
      }
    }
    const view = mount(ManifestPage, { count: 1 })
    await flush()
    expect(active).toBe(1)
    view.unmount()
    await flush()
    expect(active).toBe(0)
  })
})
