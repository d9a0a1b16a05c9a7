'use client'
import { useState } from 'react'

/** A DOM element tied to a tool's `anchors` for tours. */
export interface ToolAnchor<E extends Element> {
  /** Callback ref: `<button ref={anchor.ref}>`. */
  ref: (element: E | null) => void
  /** An `AnchorTarget`: `anchors: { tool: anchor.target }` (or `params: { query: anchor.target }`). */
  target: () => E | null
}

/**
 * Ties an element to a tool's anchors: put `anchor.ref` on the element and `anchor.target` in the
 * definition's `anchors`. Both are stable, so the tool is not re-registered; `tm.anchor(name)`
 * returns the element while it is mounted and `null` after.
 */
export function useToolAnchor<E extends Element = HTMLElement>(): ToolAnchor<E> {
  const [anchor] = useState(() => {
    let element: E | null = null
    return {
      ref: (el: E | null) => {
        element = el
      },
      target: () => element,
    }
  })
  return anchor
}
