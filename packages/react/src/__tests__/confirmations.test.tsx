import { act, fireEvent, screen } from '@testing-library/react'
import { createConfirmQueue, ok, type ToolResult } from '@toolmark/core'
import { afterEach, expect, it, vi } from 'vitest'
import * as z from 'zod'
import {
  ConfirmationCard,
  type ConfirmQueue,
  ToolScope,
  useConfirmQueue,
  usePendingConfirmations,
  useTool,
} from '../index.ts'
import { describeEachReactMode, flush, setup } from './utils.tsx'

const Target = z.object({ name: z.string() })

function Remove({ onRun }: { onRun: (name: string) => void }) {
  useTool({
    name: 'remove',
    description: 'Delete a challenge',
    title: 'Delete challenge',
    input: Target,
    hints: { destructive: true },
    summary: ({ name }) => `Delete "${name}"`,
    run: ({ name }) => {
      onRun(name)
      return ok({ deleted: name })
    },
  })
  return null
}

function Publish() {
  useTool({
    name: 'publish',
    description: 'Publish a challenge',
    input: Target,
    hints: { consequential: true },
    run: ({ name }) => ok({ published: name }),
  })
  return null
}

function PendingCards() {
  const { items } = usePendingConfirmations()
  return (
    <>
      {items.map((item) => (
        <ConfirmationCard key={item.confirmId} confirmation={item} />
      ))}
    </>
  )
}

function QueueCards({ queue }: { queue: ConfirmQueue }) {
  const { items } = useConfirmQueue(queue)
  return (
    <>
      {items.map((item) => (
        <ConfirmationCard key={item.confirmId} confirmation={item} />
      ))}
    </>
  )
}

function Capture({ onRender }: { onRender: (view: ReturnType<typeof usePendingConfirmations>) => void }) {
  onRender(usePendingConfirmations())
  return null
}

afterEach(() => {
  vi.useRealTimers()
})

/** The card's buttons in order, each with whether it is the primary one (`data-toolmark-primary`). */
const buttons = (): Array<[string, boolean]> =>
  screen.getAllByRole('button').map((b) => [b.textContent ?? '', b.hasAttribute('data-toolmark-primary')])

describeEachReactMode('usePendingConfirmations + ConfirmationCard', ({ render }) => {
  it('renders a destructive deferred request and runs the tool once on Delete', async () => {
    const { tm, wrap } = setup()
    const onRun = vi.fn()
    const settled: ToolResult[] = []
    tm.events.on('confirm', (e) => {
      if (e.phase === 'settled' && e.result) settled.push(e.result)
    })
    render(
      wrap(
        <>
          <Remove onRun={onRun} />
          <PendingCards />
        </>,
      ),
    )
    await flush()
    const result = await act(() => tm.call('remove', { name: 'Robotics' }, { caller: 'inapp' }))
    expect(result).toMatchObject({ status: 'needs_confirmation', summary: 'Delete "Robotics"' })
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
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Delete' }))
    })
    await flush()
    expect(onRun).toHaveBeenCalledTimes(1)
    expect(onRun).toHaveBeenCalledWith('Robotics')
    expect(settled).toEqual([{ status: 'ok', data: { deleted: 'Robotics' } }])
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
  })

  it('rejects from the card: the tool does not run and the card disappears', async () => {
    const { tm, wrap } = setup()
    const settled: ToolResult[] = []
    tm.events.on('confirm', (e) => {
      if (e.phase === 'settled' && e.result) settled.push(e.result)
    })
    render(
      wrap(
        <>
          <Publish />
          <PendingCards />
        </>,
      ),
    )
    await flush()
    await act(() => tm.call('publish', { name: 'Robotics' }, { caller: 'inapp' }))
    expect(buttons()).toEqual([
      ['Reject', false],
      ['Approve', true],
    ])
    expect(screen.queryByTestId('confirmation-warning')).toBeNull()
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Reject' }))
    })
    await flush()
    expect(settled).toEqual([{ status: 'cancelled', by: 'operator' }])
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
  })

  it('drops the pending confirmation and its card when the scope unmounts', async () => {
    const { tm, wrap } = setup()
    const view = render(
      wrap(
        <>
          <ToolScope name="board">
            <Publish />
          </ToolScope>
          <PendingCards />
        </>,
      ),
    )
    await flush()
    const result = await act(() => tm.call('board.publish', { name: 'Robotics' }, { caller: 'inapp' }))
    expect(screen.getAllByTestId('confirmation-card')).toHaveLength(1)
    view.rerender(wrap(<PendingCards />))
    await flush()
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
    expect(tm.pendingConfirmations()).toEqual([])
    const confirmId = result.status === 'needs_confirmation' ? result.confirmId : ''
    expect(await tm.confirmPending(confirmId, { approved: true })).toMatchObject({
      status: 'refused',
      code: 'confirmation_expired',
    })
  })

  it('drops the pending confirmation and its card when the tool component unmounts (no scope)', async () => {
    const { tm, wrap } = setup()
    const outcomes: string[] = []
    tm.events.on('confirm', (e) => {
      if (e.phase === 'settled') outcomes.push(e.outcome)
    })
    const view = render(
      wrap(
        <>
          <Publish />
          <PendingCards />
        </>,
      ),
    )
    await flush()
    await act(() => tm.call('publish', { name: 'Robotics' }, { caller: 'inapp' }))
    expect(screen.getAllByTestId('confirmation-card')).toHaveLength(1)
    view.rerender(wrap(<PendingCards />))
    await flush()
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
    expect(outcomes).toEqual(['expired'])
  })

  it('answers by id and per item, with edited input', async () => {
    const { tm, wrap } = setup()
    let answers: ReturnType<typeof usePendingConfirmations> | undefined
    render(
      wrap(
        <>
          <Publish />
          <Capture onRender={(view) => (answers = view)} />
        </>,
      ),
    )
    await flush()
    await act(() => tm.call('publish', { name: 'a' }, { caller: 'inapp' }))
    await act(() => tm.call('publish', { name: 'b' }, { caller: 'inapp' }))
    expect(answers?.items.map((i) => i.input)).toEqual([{ name: 'a' }, { name: 'b' }])
    const [first, second] = answers?.items ?? []
    expect(await act(() => first!.approve({ name: 'edited' }))).toEqual({
      status: 'ok',
      data: { published: 'edited' },
    })
    expect(await act(() => answers!.reject(second!.confirmId))).toEqual({
      status: 'cancelled',
      by: 'operator',
    })
    expect(answers?.items).toEqual([])
  })

  it('counts down to expiresAt', async () => {
    vi.useFakeTimers({
      now: new Date('2026-01-01T00:00:00Z'),
      toFake: ['Date', 'setInterval', 'clearInterval'],
    })
    const { tm, wrap } = setup()
    render(
      wrap(
        <>
          <Publish />
          <PendingCards />
        </>,
      ),
    )
    await flush()
    await act(() => tm.call('publish', { name: 'Robotics' }, { caller: 'inapp' }))
    expect(screen.getByTestId('confirmation-countdown').textContent).toBe('Expires in 10:00')
    act(() => vi.advanceTimersByTime(61_000))
    expect(screen.getByTestId('confirmation-countdown').textContent).toBe('Expires in 8:59')
  })
})

describeEachReactMode('useConfirmQueue', ({ render }) => {
  it('shows inline requests and resolves the waiting call on Approve', async () => {
    const queue = createConfirmQueue()
    const { tm, wrap } = setup({ confirm: queue.handler })
    render(
      wrap(
        <>
          <Publish />
          <QueueCards queue={queue} />
        </>,
      ),
    )
    await flush()
    let result: Promise<ToolResult> | undefined
    await act(async () => {
      result = tm.call('publish', { name: 'Robotics' }, { caller: 'tour' })
    })
    await flush()
    expect(screen.getAllByTestId('confirmation-card')).toHaveLength(1)
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Approve' }))
    })
    expect(await result).toEqual({ status: 'ok', data: { published: 'Robotics' } })
    await flush()
    expect(screen.queryByTestId('confirmation-card')).toBeNull()
  })
})

/** A chat input and the pending cards, which take focus when `autoFocus` is set. */
function Chat({ autoFocus }: { autoFocus: boolean }) {
  const { items } = usePendingConfirmations()
  return (
    <>
      <input aria-label="Message" />
      {items.map((item) => (
        <ConfirmationCard key={item.confirmId} confirmation={item} autoFocus={autoFocus} />
      ))}
    </>
  )
}

/** A destructive tool whose effect the page can undo. */
function Undoable() {
  useTool({
    name: 'archive',
    description: 'Archive a challenge',
    input: Target,
    hints: { destructive: true },
    undoable: true,
    run: () => ok(),
  })
  return null
}

describeEachReactMode('ConfirmationCard for keyboards and screen readers', ({ render }) => {
  async function ask(autoFocus: boolean) {
    const { tm, wrap } = setup()
    const onRun = vi.fn()
    render(
      wrap(
        <>
          <Remove onRun={onRun} />
          <Chat autoFocus={autoFocus} />
        </>,
      ),
    )
    await flush()
    const input = screen.getByRole<HTMLInputElement>('textbox', { name: 'Message' })
    input.focus()
    await act(() => tm.call('remove', { name: 'Robotics' }, { caller: 'inapp' }))
    return { tm, onRun, input }
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
    expect(card.getAttribute('aria-describedby')?.split(' ')).toEqual([
      screen.getByTestId('confirmation-summary').id,
    ])
  })

  it('Escape inside the card rejects it; without autoFocus focus stays in the input', async () => {
    const { tm, onRun, input } = await ask(false)
    const settled: ToolResult[] = []
    tm.events.on('confirm', (e) => {
      if (e.phase === 'settled' && e.result) settled.push(e.result)
    })
    expect(document.activeElement).toBe(input)
    fireEvent.keyDown(input, { key: 'Escape' })
    expect(screen.getByRole('alertdialog')).toBeTruthy()
    await act(async () => {
      fireEvent.keyDown(screen.getByRole('button', { name: 'Delete' }), { key: 'Escape' })
    })
    await flush()
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(settled).toEqual([{ status: 'cancelled', by: 'operator' }])
    expect(onRun).not.toHaveBeenCalled()
  })

  it('autoFocus moves focus to Reject and gives it back to the input once the card settles', async () => {
    const { input } = await ask(true)
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Reject' }))
    await act(async () => {
      fireEvent.keyDown(document.activeElement!, { key: 'Escape' })
    })
    await flush()
    expect(screen.queryByRole('alertdialog')).toBeNull()
    expect(document.activeElement).toBe(input)
  })

  it('an undoable tool says it can be undone from the page instead of the warning', async () => {
    const { tm, wrap } = setup()
    render(
      wrap(
        <>
          <Undoable />
          <PendingCards />
        </>,
      ),
    )
    await flush()
    await act(() => tm.call('archive', { name: 'Robotics' }, { caller: 'inapp' }))
    expect(screen.getByTestId('confirmation-undo-note').textContent).toBe(
      'This action can be undone from the page.',
    )
    expect(screen.queryByText('This action cannot be undone.')).toBeNull()
    expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy()
  })
})
