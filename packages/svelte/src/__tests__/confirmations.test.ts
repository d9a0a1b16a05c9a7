import { fireEvent, screen } from '@testing-library/svelte'
import { createConfirmQueue, type ToolResult } from '@toolmark/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { PendingConfirmationsStore } from '../index.ts'
import ChatPage from './fixtures/ChatPage.svelte'
import PendingPage from './fixtures/PendingPage.svelte'
import QueuePage from './fixtures/QueuePage.svelte'
import Undoable from './fixtures/Undoable.svelte'
import { flush, setup } from './utils.ts'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

/** The card's buttons in order, each with whether it is the primary one (`data-toolmark-primary`). */
const buttons = (): Array<[string, boolean]> =>
  screen.getAllByRole('button').map((b) => [b.textContent ?? '', b.hasAttribute('data-toolmark-primary')])

const settledResults = (tm: ReturnType<typeof setup>['tm']) => {
  const settled: ToolResult[] = []
  tm.events.on('confirm', (e) => {
    if (e.phase === 'settled' && e.result) settled.push(e.result)
  })
  return settled
}

/** Mounts the pending-confirmations page and asks it to confirm a `publish`: one card shows. */
const showPublishCard = async (): Promise<void> => {
  const { tm, mount } = setup()
  mount(PendingPage, { tools: ['publish'] })
  await flush()
  await tm.call('publish', { name: 'Robotics' }, { caller: 'inapp' })
  await flush()
}

describe('usePendingConfirmations ($pending) + ConfirmationCard', () => {
  it('renders a destructive deferred request and runs the tool once on Delete', async () => {
    const { tm, mount } = setup()
    const onRun = vi.fn()
    const settled = settledResults(tm)
    mount(PendingPage, { tools: ['remove'], onRun })
    await flush()
    const result = await tm.call('remove', { name: 'Robotics' }, { caller: 'inapp' })
    expect(result).toMatchObject({ status: 'needs_confirmation', summary: 'Delete "Robotics"' })
    await flush()
    expect(screen.getByRole('heading').textContent).toBe('Delete challenge')
    expect(screen.getByTestId('confirmation-summary').textContent).toBe('Delete "Robotics"')
    expect(screen.getByTestId('confirmation-target').textContent).toBe('Robotics')
    expect(screen.getByText('This action cannot be undone.')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull()
    // Reject first, then the one primary button: the demos' order.
    expect(buttons()).toEqual([
      ['Reject', false],
      ['Delete', true],
    ])
    await fireEvent.click(screen.getByRole('button', { name: 'Delete' }))
    await flush()
    await flush()
    expect(onRun).toHaveBeenCalledTimes(1)
    expect(onRun).toHaveBeenCalledWith('Robotics')
    expect(settled).toEqual([{ status: 'ok', data: { deleted: 'Robotics' } }])
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
  })

  it('rejects from the card: the tool does not run and the card disappears', async () => {
    const { tm, mount } = setup()
    const settled = settledResults(tm)
    mount(PendingPage, { tools: ['publish'] })
    await flush()
    await tm.call('publish', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    expect(buttons()).toEqual([
      ['Reject', false],
      ['Approve', true],
    ])
    expect(screen.queryByTestId('confirmation-warning')).toBeNull()
    await fireEvent.click(screen.getByRole('button', { name: 'Reject' }))
    await flush()
    expect(settled).toEqual([{ status: 'cancelled', by: 'operator' }])
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
  })

  it('drops the pending confirmation and its card when the scope is destroyed', async () => {
    const { tm, mount } = setup()
    const view = mount(PendingPage, { tools: ['board'] })
    await flush()
    const result = await tm.call('board.publish', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    expect(screen.getAllByTestId('confirmation-card')).toHaveLength(1)
    await view.update({ tools: [] })
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
    const confirmId = result.status === 'needs_confirmation' ? result.confirmId : ''
    expect(await tm.confirmPending(confirmId, { approved: true })).toMatchObject({
      code: 'confirmation_expired',
    })
  })

  it('drops the pending confirmation and its card when the tool component is destroyed (no scope)', async () => {
    const { tm, mount } = setup()
    const outcomes: string[] = []
    tm.events.on('confirm', (e) => {
      if (e.phase === 'settled') outcomes.push(e.outcome)
    })
    const view = mount(PendingPage, { tools: ['publish'] })
    await flush()
    await tm.call('publish', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    expect(screen.getAllByTestId('confirmation-card')).toHaveLength(1)
    await view.update({ tools: [] })
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
    expect(outcomes).toEqual(['expired'])
  })

  it('answers by id and per item, with edited input, through the store and .current', async () => {
    const { tm, mount } = setup()
    let view: PendingConfirmationsStore | undefined
    mount(PendingPage, { tools: ['publish'], onView: (v: PendingConfirmationsStore) => (view = v) })
    await flush()
    await tm.call('publish', { name: 'a' }, { caller: 'inapp' })
    await tm.call('publish', { name: 'b' }, { caller: 'inapp' })
    expect(view?.current.map((i) => i.input)).toEqual([{ name: 'a' }, { name: 'b' }])
    const [first, second] = view?.current ?? []
    expect(await first!.approve({ name: 'edited' })).toEqual({ status: 'ok', data: { published: 'edited' } })
    expect(await view!.reject(second!.confirmId)).toEqual({ status: 'cancelled', by: 'operator' })
    expect(view?.current).toEqual([])
    const values: unknown[] = []
    const off = view!.subscribe((items) => values.push(items))
    off()
    expect(values).toEqual([[]])
  })

  it('counts down to expiresAt', async () => {
    vi.useFakeTimers({
      now: new Date('2026-01-01T00:00:00Z'),
      toFake: ['Date', 'setInterval', 'clearInterval'],
    })
    await showPublishCard()
    expect(screen.getByTestId('confirmation-countdown').textContent?.trim()).toBe('Expires in 10:00')
    vi.advanceTimersByTime(61_000)
    await flush()
    expect(screen.getByTestId('confirmation-countdown').textContent?.trim()).toBe('Expires in 8:59')
  })

  it('mounts a card on a slow device, where the clock moves between two reads', async () => {
    // Every Date.now() is a millisecond later, as on a device slow enough that starting the
    // countdown takes longer than a millisecond: the card must still mount once, not loop.
    let t = Date.parse('2026-01-01T00:00:00Z')
    vi.spyOn(Date, 'now').mockImplementation(() => t++)
    await showPublishCard()
    expect(screen.getByTestId('confirmation-countdown').textContent?.trim()).toBe('Expires in 10:00')
  })
})

describe('useConfirmQueue', () => {
  it('shows inline requests and resolves the waiting call on Approve', async () => {
    const queue = createConfirmQueue()
    const { tm, mount } = setup({ confirm: queue.handler })
    mount(QueuePage, { queue })
    await flush()
    const result = tm.call('publish', { name: 'Robotics' }, { caller: 'tour' })
    await flush()
    await flush()
    expect(screen.getAllByTestId('confirmation-card')).toHaveLength(1)
    await fireEvent.click(screen.getByRole('button', { name: 'Approve' }))
    expect(await result).toEqual({ status: 'ok', data: { published: 'Robotics' } })
    await flush()
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
  })
})

describe('ConfirmationCard for keyboards and screen readers', () => {
  async function ask(autoFocus: boolean) {
    const { tm, mount } = setup()
    const settled = settledResults(tm)
    mount(ChatPage, { autoFocus })
    await flush()
    const input = screen.getByRole<HTMLInputElement>('textbox', { name: 'Message' })
    input.focus()
    await tm.call('remove', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    return { input, settled }
  }

  it('is an alertdialog named by its title and described by its summary; the countdown is not live', async () => {
    await ask(false)
    const card = screen.getByRole('alertdialog', {
      name: 'Delete challenge',
      description: 'Delete "Robotics"',
    })
    const timer = screen.getByRole('timer')
    expect(card.contains(timer)).toBe(true)
    expect(timer.getAttribute('aria-live')).toBe('off')
  })

  it('Escape inside the card rejects it; without autoFocus focus stays in the input', async () => {
    const { input, settled } = await ask(false)
    expect(document.activeElement).toBe(input)
    await fireEvent.keyDown(input, { key: 'Escape' })
    expect(settled).toEqual([])
    await fireEvent.keyDown(screen.getByRole('button', { name: 'Delete' }), { key: 'Escape' })
    await flush()
    expect(settled).toEqual([{ status: 'cancelled', by: 'operator' }])
    expect(screen.queryByRole('alertdialog')).toBeNull()
  })

  it('autoFocus moves focus to Reject and gives it back to the input once the card settles', async () => {
    const { input } = await ask(true)
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Reject' }))
    await fireEvent.keyDown(document.activeElement!, { key: 'Escape' })
    await flush()
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(document.activeElement).toBe(input)
  })

  it('an undoable tool says it can be undone from the page instead of the warning', async () => {
    const { tm, mount } = setup()
    mount(Undoable)
    await flush()
    await tm.call('archive', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    expect(screen.getByTestId('confirmation-undo-note').textContent).toBe(
      'This action can be undone from the page.',
    )
    expect(screen.queryByTestId('confirmation-warning')).toBeNull()
  })
})
