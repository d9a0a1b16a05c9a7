import type { Readable } from 'svelte/store';
/** A Svelte store (`$store` in components) that also offers a runes-friendly `current`. */
export interface ReactiveStore<T> extends Readable<T> {
    /** The current value; reading it in an effect or template subscribes while read. */
    readonly current: T;
}
/**
 * Wraps a core subscription (`listen`) and getter (`read`) as a store. The core is subscribed while
 * someone listens (store subscribers or effects reading `current`) and never on the server.
 * Subscribers run only when `read()` returns a new value (the core keeps identities per change).
 */
export declare function externalStore<T>(read: () => T, listen: (onChange: () => void) => () => void): ReactiveStore<T>;
