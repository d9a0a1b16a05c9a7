import type { Toolmark, ToolmarkConsumer } from '@toolmark/core';
import { type Snippet } from 'svelte';
interface Props {
    /** The registry, usually created once per page with `createToolmark(...)`. */
    toolmark: Toolmark;
    /** Consumers (`bridge(...)`, `webmcp(...)`, ...) attached with `tm.use` while mounted. */
    consumers?: readonly ToolmarkConsumer[];
    children?: Snippet;
}
declare const ToolmarkProvider: import("svelte").Component<Props, {}, "">;
type ToolmarkProvider = ReturnType<typeof ToolmarkProvider>;
export default ToolmarkProvider;
