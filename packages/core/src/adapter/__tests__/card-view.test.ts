// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ConfirmationCardData } from '../../types.ts'
import {
  attachCard,
  cardView,
  DESTRUCTIVE_WARNING,
  REJECT_ATTRIBUTE,
  readableToolName,
  UNDOABLE_NOTE,
} from '../index.ts'

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
  it('labels destructive cards Delete with the warning, and falls back to the tool name made readable', () => {
    const view = cardView(data, 1_000_000 - 61_500)
    expect(view).toMatchObject({
      confirmId: 'c1',
      tool: 'challenges.delete',
      heading: 'Challenges: delete',
      approveLabel: 'Delete',
      rejectLabel: 'Reject',
      warning: DESTRUCTIVE_WARNING,
      undoable: false,
      undoNote: undefined,
      secondsLeft: 62,
      countdown: '1:02',
      expired: false,
      expiresAt: 1_000_000,
    })
    expect(DESTRUCTIVE_WARNING).toBe('This action cannot be undone.')
  })

  it('a heading without a title never shows the raw dotted name', () => {
    expect(cardView({ ...data, tool: 'challengeForm.submit' }, 0).heading).toBe('Challenge form: submit')
    expect(readableToolName('app.user_settings.save-all')).toBe('App user settings: save all')
    expect(readableToolName('delete')).toBe('Delete')
  })

  it('labels other cards Approve without a warning and reports expiry at zero', () => {
    const view = cardView({ ...data, destructive: false, title: 'Delete challenge' }, 1_000_000)
    expect(view).toMatchObject({ heading: 'Delete challenge', approveLabel: 'Approve', warning: undefined })
    expect(view).toMatchObject({ secondsLeft: 0, countdown: '0:00', expired: true })
    expect(cardView(data, 2_000_000).secondsLeft).toBe(0)
  })

  it('an undoable destructive tool keeps Delete but says it can be undone instead of the warning', () => {
    const view = cardView({ ...data, undoable: true }, 0)
    expect(view).toMatchObject({ approveLabel: 'Delete', warning: undefined, undoable: true })
    expect(view.undoNote).toBe(UNDOABLE_NOTE)
    expect(UNDOABLE_NOTE).toBe('This action can be undone from the page.')
  })

  it('names the card as an alert dialog labelled by its title and described by its summary', () => {
    const view = cardView(data, 0)
    expect(view.role).toBe('alertdialog')
    expect(view.titleId).toBe('toolmark-card-c1-title')
    expect(view.summaryId).toBe('toolmark-card-c1-summary')
    expect(cardView({ ...data, confirmId: 'c2' }, 0).titleId).not.toBe(view.titleId)
  })
})

describe('attachCard', () => {
  afterEach(() => {
    document.body.innerHTML = ''
  })

  /** A chat input (focused, optionally with text) and a card with Delete and Reject buttons. */
  function setup(typed = '') {
    const input = document.createElement('input')
    input.value = typed
    document.body.append(input)
    input.focus()
    const card = document.createElement('section')
    card.innerHTML = `<button id="delete">Delete</button><button id="reject" ${REJECT_ATTRIBUTE}>Reject</button>`
    document.body.append(card)
    const reject = vi.fn()
    return { input, card, reject, rejectButton: card.querySelector<HTMLElement>('#reject')! }
  }
  const pressEscape = (target: Element, init: KeyboardEventInit = {}) => {
    const event = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true, ...init })
    target.dispatchEvent(event)
    return event
  }

  it('Escape inside the card rejects it and stops there; Escape elsewhere or other keys do nothing', () => {
    const { input, card, reject } = setup()
    const outer = vi.fn()
    document.addEventListener('keydown', outer)
    const detach = attachCard(card, { reject })
    const event = pressEscape(card.querySelector('#delete')!)
    expect(reject).toHaveBeenCalledTimes(1)
    expect(event.defaultPrevented).toBe(true)
    expect(outer).not.toHaveBeenCalled()

    pressEscape(input)
    card
      .querySelector('#delete')!
      .dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
    pressEscape(card, { isComposing: true })
    expect(reject).toHaveBeenCalledTimes(1)
    detach()
    pressEscape(card)
    expect(reject).toHaveBeenCalledTimes(1)
    document.removeEventListener('keydown', outer)
  })

  it('autoFocus moves focus to Reject, and detaching puts it back on the element it came from', () => {
    const { input, card, reject, rejectButton } = setup()
    const detach = attachCard(card, { reject, autoFocus: true })
    expect(document.activeElement).toBe(rejectButton)
    card.remove()
    detach()
    expect(document.activeElement).toBe(input)
  })

  it('never takes focus from a field the user is typing in, nor without autoFocus', () => {
    const typing = setup('half a sentence')
    const detach = attachCard(typing.card, { reject: typing.reject, autoFocus: true })
    expect(document.activeElement).toBe(typing.input)
    detach()
    document.body.innerHTML = ''
    const quiet = setup()
    attachCard(quiet.card, { reject: quiet.reject })
    expect(document.activeElement).toBe(quiet.input)
  })

  it('returns focus to where the user tabbed in from, but not when focus has moved on elsewhere', () => {
    const { input, card, reject, rejectButton } = setup()
    const other = document.createElement('button')
    document.body.append(other)
    const detach = attachCard(card, { reject })
    rejectButton.focus()
    expect(document.activeElement).toBe(rejectButton)
    detach()
    expect(document.activeElement).toBe(input)

    const again = attachCard(card, { reject })
    rejectButton.focus()
    other.focus()
    again()
    expect(document.activeElement).toBe(other)
  })
})
