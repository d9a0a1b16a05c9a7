import { useToolmark } from './context.js';
import { externalStore } from './store.js';
export function useManifest(options = {}) {
    const tm = useToolmark();
    const { caller, detail } = options;
    const base = caller ? { caller } : {};
    return externalStore(() => (detail === 'full' ? tm.manifest({ ...base, detail }) : tm.manifest(base)), (onChange) => tm.subscribe(onChange));
}
