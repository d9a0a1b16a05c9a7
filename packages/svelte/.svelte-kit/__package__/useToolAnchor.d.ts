/** A DOM element tied to a tool's `anchors` for tours. */
export interface ToolAnchor<E extends Element> {
    /** An attachment: `<button {@attach anchor.attach}>` (Svelte ≥ 5.29). */
    attach: (element: E) => () => void;
    /** An `AnchorTarget`: `anchors: { tool: anchor.target }` (or `params: { query: anchor.target }`). */
    target: () => E | null;
}
/**
 * Ties an element to a tool's anchors: attach `anchor.attach` to the element and put `anchor.target`
 * in the definition's `anchors`. `tm.anchor(name)` returns the element while it is mounted, `null` after.
 */
export declare function useToolAnchor<E extends Element = HTMLElement>(): ToolAnchor<E>;
