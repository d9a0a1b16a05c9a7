import { act, fireEvent, screen } from '@testing-library/react'
import { ok, type ToolResult } from '@toolmark/core'
import { createGrantStore } from '@toolmark/core/grants'
import { expect, it } from 'vitest'
import { ConfirmationCard, GrantsList, usePendingConfirmations, useTool } from '../index.ts'
import { describeEachReactMode, flush, setup } from './utils.tsx'

function Note({ grantable = true }: { grantable?: boolean }) {
  useTool({
    name: 'notes.add',
    title: 'Add note',
    description: 'Add a note',
    hints: { consequential: true },
    grantable,
    run: () => ok('added'),
  })
  return null
}

function Cards() {
  const { items } = usePendingConfirmations()
  return (
    <>
      {items.map((item) => (
        <ConfirmationCard key={item.confirmId} confirmation={item} grantDays={7} />
      ))}
    </>
  )
}

describeEachReactMode('grants', ({ render }) => {
  it('a grantable card offers the choice; "always" remembers it, the list shows it and Revoke makes it ask again', async () => {
    const grants = createGrantStore()
    const { tm, wrap } = setup({ grants })
    render(
      wrap(
        <>
          <Note />
          <Cards />
          <GrantsList grants={grants} />
        </>,
      ),
    )
    await flush()
    expect(screen.getByTestId('grants-empty')).toBeTruthy()
    let first: ToolResult | undefined
    await act(async () => {
      first = await tm.call('notes.add', {}, { caller: 'inapp', conversation: 'c1' })
    })
    expect(first?.status).toBe('needs_confirmation')
    const radios = screen.getAllByRole('radio') as HTMLInputElement[]
    expect(radios.map((r) => r.parentElement?.textContent)).toEqual([
      'Allow once',
      'Allow for this conversation',
      'Always allow for 7 days',
    ])
    expect(radios[0]!.checked).toBe(true)
    fireEvent.click(radios[2]!)
    await act(async () => {
      fireEvent.click(screen.getByText('Approve'))
      await flush()
    })
    expect(grants.list()).toEqual([expect.objectContaining({ tool: 'notes.add', caller: 'inapp' })])
    expect(screen.getByTestId('grants').textContent).toContain('Add note')
    expect(screen.getByTestId('grants').textContent).toContain('Allowed for the in-app agent, until')

    let second: ToolResult | undefined
    await act(async () => {
      second = await tm.call('notes.add', {}, { caller: 'inapp' })
    })
    expect(second).toEqual(ok('added'))
    expect(screen.queryByTestId('confirmation-card')).toBeNull()

    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Revoke Add note' }))
      await flush()
    })
    expect(grants.list()).toEqual([])
    expect(screen.getByTestId('grants-empty')).toBeTruthy()
    await act(async () => {
      second = await tm.call('notes.add', {}, { caller: 'inapp' })
    })
    expect(second?.status).toBe('needs_confirmation')
  })

  it('approving with the default choice remembers nothing; a tool that is not grantable offers no choice', async () => {
    const grants = createGrantStore()
    const { tm, wrap } = setup({ grants })
    const view = render(
      wrap(
        <>
          <Note />
          <Cards />
        </>,
      ),
    )
    await flush()
    await act(async () => {
      await tm.call('notes.add', {}, { caller: 'inapp' })
    })
    await act(async () => {
      fireEvent.click(screen.getByText('Approve'))
      await flush()
    })
    expect(grants.list()).toEqual([])
    view.rerender(
      wrap(
        <>
          <Note grantable={false} />
          <Cards />
        </>,
      ),
    )
    await flush()
    await act(async () => {
      await tm.call('notes.add', {}, { caller: 'inapp' })
    })
    expect(screen.getByTestId('confirmation-card')).toBeTruthy()
    expect(screen.queryByTestId('confirmation-remember')).toBeNull()
  })
})
