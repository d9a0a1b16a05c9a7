import type { ComponentPublicInstance } from 'vue'

/** A DOM element tied to a tool's `anchors` for tours. */
export interface ToolAnchor<E extends Element> {
  /** Function ref: `<button :ref="anchor.ref">` (a component's root element is used). */
  ref: (element: Element | ComponentPublicInstance | null) => void
  /** An `AnchorTarget`: `anchors: { tool: anchor.target }` (or `params: { query: anchor.target }`). */
  target: () => E | null
}

/**
 * Ties an element to a tool's anchors: bind `anchor.ref` on the element and put `anchor.target` in
 * the definition's `anchors`. `tm.anchor(name)` returns the element while it is mounted, `null` after.
 */
export function useToolAnchor<E extends Element = HTMLElement>(): ToolAnchor<E> {
  let element: E | null = null
  return {
    ref: (el) => {
      const node = el && !(el instanceof Element) ? (el.$el as unknown) : el
      element = node instanceof Element ? (node as E) : null
    },
    target: () => element,
  }
}
