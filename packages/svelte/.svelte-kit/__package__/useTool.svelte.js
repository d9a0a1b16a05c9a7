import { untrack } from 'svelte';
import { getScopeContext, useToolmark } from './context.js';
import { liveDefinition, optionalKey } from './liveDefinition.js';
const hintsKey = (d) => d.hints
    ? `${!!d.hints.readOnly}${!!d.hints.consequential}${!!d.hints.destructive}${!!d.hints.untrustedContent}`
    : '';
/**
 * Registers `definition` while the component is mounted (`$effect`, disposed in its teardown; never
 * on the server). Pass the definition or a getter returning it (`() => ({ name: `${prefix}.save`, ... })`).
 * `run`, `summary`, `state`, `snapshot`, `sensitivePaths` and `anchors` are read from its latest
 * value; the tool is registered again only when its name, description, title, hints (by value),
 * schemas (by identity) or scope change. Call during component initialisation.
 */
export function useTool(definition, options = {}) {
    const tm = useToolmark();
    const provided = getScopeContext();
    const current = () => (typeof definition === 'function' ? definition() : definition);
    const name = $derived(current().name);
    const description = $derived(current().description);
    const title = $derived(current().title);
    const hints = $derived(hintsKey(current()));
    const input = $derived(current().input);
    const output = $derived(current().output);
    const jsonSchema = $derived(current().jsonSchema);
    const optional = $derived(optionalKey(current()));
    const scope = $derived.by(() => {
        const explicit = typeof options.scope === 'function' ? options.scope() : options.scope;
        return explicit === undefined ? provided?.current : explicit;
    });
    $effect(() => {
        const where = scope;
        const parts = { name, description, title, input, output, jsonSchema, optional };
        void hints; // tracked: new hint flags mean a new registration
        if (where === null)
            return;
        const handle = untrack(() => tm.register(liveDefinition({ ...parts, hints: current().hints }, current), where ? { scope: where } : {}));
        return () => handle.dispose();
    });
}
