import { fireEvent, screen } from '@testing-library/svelte'
import { ok } from '@toolmark/core'
import { createGrantStore } from '@toolmark/core/grants'
import { describe, expect, it } from 'vitest'
import GrantsPage from './fixtures/GrantsPage.svelte'
import { flush, setup } from './utils.ts'

describe('grants', () => {
  it('a grantable card offers the choice; "always" remembers it, the list shows it and Revoke makes it ask again', async () => {
    const grants = createGrantStore()
    const { tm, mount } = setup({ grants })
    mount(GrantsPage, { grants })
    await flush()
    expect(screen.getByTestId('grants-empty')).toBeTruthy()
    expect((await tm.call('notes.add', {}, { caller: 'inapp', conversation: 'c1' })).status).toBe(
      'needs_confirmation',
    )
    await flush()
    const radios = screen.getAllByRole('radio') as HTMLInputElement[]
    expect(radios.map((r) => r.parentElement?.textContent)).toEqual([
      'Allow once',
      'Allow for this conversation',
      'Always allow for 7 days',
    ])
    expect(radios[0]!.checked).toBe(true)
    await fireEvent.change(radios[2]!)
    await fireEvent.click(screen.getByRole('button', { name: 'Approve' }))
    await flush()
    expect(grants.list()).toEqual([expect.objectContaining({ tool: 'notes.add', caller: 'inapp' })])
    expect(screen.getByTestId('grants').textContent).toContain('Add note')
    expect(screen.getByTestId('grants').textContent).toContain('Allowed for the in-app agent, until')

    expect(await tm.call('notes.add', {}, { caller: 'inapp' })).toEqual(ok('added'))
    await flush()
    expect(screen.queryByTestId('confirmation-card')).toBeNull()

    await fireEvent.click(screen.getByRole('button', { name: 'Revoke Add note' }))
    await flush()
    expect(grants.list()).toEqual([])
    expect(screen.getByTestId('grants-empty')).toBeTruthy()
    expect((await tm.call('notes.add', {}, { caller: 'inapp' })).status).toBe('needs_confirmation')
  })

  it('approving with the default choice remembers nothing', async () => {
    const grants = createGrantStore()
    const { tm, mount } = setup({ grants })
    mount(GrantsPage, { grants })
    await flush()
    await tm.call('notes.add', {}, { caller: 'inapp' })
    await flush()
    expect(screen.getAllByRole('radio')).toHaveLength(2)
    await fireEvent.click(screen.getByRole('button', { name: 'Approve' }))
    await flush()
    expect(grants.list()).toEqual([])
  })
})
