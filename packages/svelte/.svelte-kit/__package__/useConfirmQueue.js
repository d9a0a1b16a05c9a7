import { externalStore } from './store.js';
/**
 * The open requests of an inline confirmation queue (`createConfirmQueue()`, passed to
 * `createToolmark({ confirm: queue.handler })`) as a store, subscribed while listened to.
 */
export function useConfirmQueue(queue) {
    const approve = (confirmId, ...input) => input.length === 0 ? queue.approve(confirmId) : queue.approve(confirmId, input[0]);
    const reject = (confirmId) => queue.reject(confirmId);
    let source;
    let items = [];
    const read = () => {
        const list = queue.getPending();
        if (list !== source) {
            source = list;
            items = list.map((request) => ({
                ...request,
                approve: (...input) => approve(request.confirmId, ...input),
                reject: () => reject(request.confirmId),
            }));
        }
        return items;
    };
    const store = externalStore(read, (onChange) => queue.subscribe(onChange));
    return {
        subscribe: store.subscribe,
        get current() {
            return store.current;
        },
        approve,
        reject,
    };
}
