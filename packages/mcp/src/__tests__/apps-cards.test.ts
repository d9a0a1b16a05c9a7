import { afterEach, describe, expect, it, vi } from 'vitest'
import type { PairingConfirmedMessage, PairingConfirmMessage } from '../protocol/messages.ts'
import { AppCards } from '../relay/apps.ts'
import type { Tab } from '../relay/tabs.ts'

/* AppCards alone: which card gets which confirmation, and what happens when no card comes. */

afterEach(() => {
  vi.useRealTimers()
})

const tab = { id: 't1', origin: 'http://127.0.0.1:5173' } as Tab
const confirm = (confirmId: string, tool = 'challenge.delete'): PairingConfirmMessage => ({
  type: 'confirm',
  id: `call-${confirmId}`,
  confirmId,
  tool,
  summary: `Delete (${confirmId})`,
  destructive: true,
  changes: [],
  expiresAt: Date.now() + 600_000,
})
const keyOf = (cards: AppCards): string =>
  /var KEY = '([A-Za-z0-9_-]{43})'/.exec((cards.read().contents[0] as { text: string }).text)![1]!
const unavailable = (confirmId: string) => async (): Promise<PairingConfirmedMessage> => ({
  type: 'confirmed',
  confirmId,
  approved: false,
  reason: 'unavailable',
})

describe('AppCards', () => {
  it('a confirmation no card takes within 15 s goes to the fallback; a late card finds nothing', async () => {
    vi.useFakeTimers()
    const cards = new AppCards()
    const fallback = vi.fn(unavailable('c1'))
    const answer = cards.ask(tab, confirm('c1'), new AbortController().signal, fallback)
    await vi.advanceTimersByTimeAsync(14_999)
    expect(fallback).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(await answer).toEqual({
      type: 'confirmed',
      confirmId: 'c1',
      approved: false,
      reason: 'unavailable',
    })
    const late = cards.card(
      { key: keyOf(cards), tool: 't1__challenge__delete' },
      new AbortController().signal,
    )
    await vi.advanceTimersByTimeAsync(15_000)
    expect((await late).structuredContent).toEqual({ status: 'none' })
  })

  it('the model’s call cancelled: cancelled, and its token is refused', async () => {
    const cards = new AppCards()
    const call = new AbortController()
    const answer = cards.ask(tab, confirm('c2'), call.signal, unavailable('c2'))
    const card = await cards.card(
      { key: keyOf(cards), tool: 't1__challenge__delete' },
      new AbortController().signal,
    )
    call.abort()
    expect(await answer).toMatchObject({ confirmId: 'c2', approved: false, reason: 'cancelled' })
    const token = (card.structuredContent as { token: string }).token
    expect(cards.answer({ token, approved: true }).isError).toBe(true)
  })

  it('a card takes the confirmation of its own call by JSON-RPC id, and each is taken once', async () => {
    const cards = new AppCards()
    const first = new AbortController()
    const second = new AbortController()
    cards.track(first.signal, 11)
    cards.track(second.signal, 12)
    const a = cards.ask(tab, confirm('a'), first.signal, unavailable('a'))
    const b = cards.ask(tab, confirm('b'), second.signal, unavailable('b'))
    const key = keyOf(cards)
    const signal = new AbortController().signal
    const forB = await cards.card({ key, tool: 't1__challenge__delete', requestId: '12' }, signal)
    expect(forB.structuredContent).toMatchObject({ status: 'pending', summary: 'Delete (b)' })
    const again = cards.card({ key, tool: 't1__challenge__delete', requestId: '12' }, AbortSignal.abort())
    expect((await again).structuredContent).toEqual({ status: 'none' })
    const token = (forB.structuredContent as { token: string }).token
    expect(cards.answer({ token, approved: true }).isError).toBeFalsy()
    expect(await b).toEqual({ type: 'confirmed', confirmId: 'b', approved: true })
    const forA = await cards.card({ key, tool: 't1__challenge__delete', requestId: 11 }, signal)
    cards.answer({ token: (forA.structuredContent as { token: string }).token, approved: false })
    expect(await a).toEqual({ type: 'confirmed', confirmId: 'a', approved: false, reason: 'declined' })
  })
})
