import { describe, expect, it } from 'vitest'
import { type Box, cornerBox, MARGIN, overlap, placeDialog } from '../overlay.ts'

/* Where domOverlay({ avoid }) puts its dialog: pure geometry, in window coordinates. */

const view = { width: 1280, height: 800 }
const dialog = { width: 400, height: 180 }
/** A chat input at the bottom of a 380 px chat column on the right, as in the demo. */
const chatInput: Box = { left: 912, top: 740, width: 352, height: 44 }

describe('placeDialog', () => {
  it('keeps the bottom right corner when nothing is in the way', () => {
    expect(placeDialog(dialog, view, [])).toBe('bottom-right')
    expect(cornerBox('bottom-right', dialog, view)).toEqual({
      left: view.width - MARGIN - dialog.width,
      top: view.height - MARGIN - dialog.height,
      ...dialog,
    })
  })

  it('moves off a chat input at the bottom right, to the bottom left', () => {
    expect(overlap(cornerBox('bottom-right', dialog, view), chatInput)).toBeGreaterThan(0)
    const corner = placeDialog(dialog, view, [chatInput])
    expect(corner).toBe('bottom-left')
    expect(overlap(cornerBox(corner, dialog, view), chatInput)).toBe(0)
  })

  it('leaves the highlighted anchor free when a corner that covers nothing to avoid allows it', () => {
    const anchor: Box = { left: 40, top: 600, width: 300, height: 40 }
    expect(placeDialog(dialog, view, [chatInput], [anchor])).toBe('top-right')
  })

  it('never trades the avoided element for the anchor', () => {
    // Only the left corners avoid the input; both cover the anchor, and the first still wins.
    const input: Box = { left: 600, top: 0, width: 680, height: 800 }
    const anchor: Box = { left: 40, top: 0, width: 200, height: 800 }
    expect(placeDialog(dialog, view, [input], [anchor])).toBe('bottom-left')
  })

  it('on a phone, where the dialog spans the width, goes to the top to leave a bottom input free', () => {
    const phone = { width: 390, height: 844 }
    const wide = { width: 358, height: 220 }
    const input: Box = { left: 8, top: 790, width: 374, height: 44 }
    expect(placeDialog(wide, phone, [input])).toBe('top-right')
  })

  it('when every corner covers something to avoid, takes the one that covers least', () => {
    const left: Box = { left: 0, top: 0, width: 500, height: 800 }
    const right: Box = { left: 1100, top: 0, width: 180, height: 800 }
    expect(placeDialog(dialog, view, [left, right])).toBe('bottom-right')
  })

  it('touching is not covering', () => {
    expect(
      overlap({ left: 0, top: 0, width: 10, height: 10 }, { left: 10, top: 0, width: 10, height: 10 }),
    ).toBe(0)
  })
})
