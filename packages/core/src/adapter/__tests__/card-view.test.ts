import { describe, expect, it } from 'vitest'
import type { ConfirmationCardData } from '../../types.ts'
import { cardView, DESTRUCTIVE_WARNING } from '../index.ts'

const data: ConfirmationCardData = {
  confirmId: 'c1',
  tool: 'challenges.delete',
  summary: 'Delete "Robotics"',
  target: 'Robotics',
  destructive: true,
  caller: 'inapp',
  input: { name: 'Robotics' },
  changes: [],
  expiresAt: 1_000_000,
}

describe('cardView', () => {
  it('labels destructive cards Delete with the warning, and falls back to the tool name', () => {
    const view = cardView(data, 1_000_000 - 61_500)
    expect(view).toMatchObject({
      confirmId: 'c1',
      tool: 'challenges.delete',
      heading: 'challenges.delete',
      approveLabel: 'Delete',
      rejectLabel: 'Reject',
      warning: DESTRUCTIVE_WARNING,
      secondsLeft: 62,
      countdown: '1:02',
      expired: false,
      expiresAt: 1_000_000,
    })
    expect(DESTRUCTIVE_WARNING).toBe('This action cannot be undone.')
  })

  it('labels other cards Approve without a warning and reports expiry at zero', () => {
    const view = cardView({ ...data, destructive: false, title: 'Delete challenge' }, 1_000_000)
    expect(view).toMatchObject({ heading: 'Delete challenge', approveLabel: 'Approve', warning: undefined })
    expect(view).toMatchObject({ secondsLeft: 0, countdown: '0:00', expired: true })
    expect(cardView(data, 2_000_000).secondsLeft).toBe(0)
  })
})
