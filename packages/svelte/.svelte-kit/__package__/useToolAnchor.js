/**
 * Ties an element to a tool's anchors: attach `anchor.attach` to the element and put `anchor.target`
 * in the definition's `anchors`. `tm.anchor(name)` returns the element while it is mounted, `null` after.
 */
export function useToolAnchor() {
    let element = null;
    return {
        attach: (el) => {
            element = el;
            return () => {
                if (element === el)
                    element = null;
            };
        },
        target: () => element,
    };
}
