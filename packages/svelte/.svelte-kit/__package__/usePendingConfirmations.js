import { useToolmark } from './context.js';
import { externalStore } from './store.js';
/**
 * Deferred confirmations (`tm.pendingConfirmations()`) as a store of items with bound
 * `approve`/`reject`, updated when the set changes (request, answer, expiry, scope disposal).
 * Call during component initialisation; `$pending` unsubscribes when the component is destroyed.
 */
export function usePendingConfirmations() {
    const tm = useToolmark();
    const approve = (confirmId, ...input) => tm.confirmPending(confirmId, input.length === 0 ? { approved: true } : { approved: true, input: input[0] });
    const reject = (confirmId, reason) => tm.confirmPending(confirmId, reason === undefined ? { approved: false } : { approved: false, reason });
    let source;
    let items = [];
    const read = () => {
        const list = tm.pendingConfirmations();
        if (list !== source) {
            source = list;
            items = list.map((pending) => ({
                ...pending,
                approve: (...input) => approve(pending.confirmId, ...input),
                reject: (reason) => reject(pending.confirmId, reason),
            }));
        }
        return items;
    };
    // Every change of the set ends in a 'confirm' event.
    const store = externalStore(read, (onChange) => tm.events.on('confirm', onChange));
    return {
        subscribe: store.subscribe,
        get current() {
            return store.current;
        },
        approve,
        reject,
    };
}
