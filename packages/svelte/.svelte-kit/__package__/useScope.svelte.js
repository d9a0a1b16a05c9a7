import { untrack } from 'svelte';
import { getScopeContext, setScopeContext, useToolmark } from './context.js';
/**
 * A scope named `name` (or a getter of it) for this component: created in an `$effect` on mount,
 * disposed in its teardown with its tools and pending confirmations, and set in context so
 * descendants' `useTool` register in it. `current` is `null` until it exists (and on the server).
 * Call during component initialisation.
 */
export function useScope(name, options = {}) {
    const tm = useToolmark();
    const parent = getScopeContext();
    let scope = $state.raw(null);
    const view = {
        get current() {
            return scope;
        },
    };
    setScopeContext(view);
    const live = () => {
        const when = options.when;
        return typeof when === 'function' ? when() : when !== false;
    };
    const segment = $derived(typeof name === 'function' ? name() : name);
    const under = $derived(parent ? parent.current : undefined);
    const visible = $derived(live());
    let applied;
    $effect(() => {
        const base = under;
        const label = segment;
        if (base === null)
            return;
        const created = untrack(() => {
            const { transparent } = options;
            return (base ?? tm).scope(label, transparent === undefined ? { when: live } : { when: live, transparent });
        });
        applied = { scope: created, visible: untrack(() => visible) };
        scope = created;
        return () => {
            created.dispose();
            if (untrack(() => scope) === created)
                scope = null;
        };
    });
    $effect(() => {
        const now = visible;
        const target = untrack(() => scope);
        if (!target || (applied?.scope === target && applied.visible === now))
            return;
        applied = { scope: target, visible: now };
        target.setWhen(live);
    });
    return view;
}
