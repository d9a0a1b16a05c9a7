import type { Toolmark, ToolmarkConsumer } from '@toolmark/core'
import type { App, Plugin } from 'vue'
import { TOOLMARK_KEY } from './injection.ts'

/** Options of `app.use(ToolmarkPlugin, options)`. */
export interface ToolmarkPluginOptions {
  /** The registry, usually created once per page with `createToolmark(...)`. */
  toolmark: Toolmark
  /** Consumers (`bridge(...)`, `webmcp(...)`, ...) attached with `tm.use` until the app unmounts. */
  consumers?: readonly ToolmarkConsumer[]
}

/**
 * `app.use(ToolmarkPlugin, { toolmark, consumers })`: provides the instance to the whole app and
 * attaches the consumers until `app.unmount()` (on the server the core keeps them inert).
 */
export const ToolmarkPlugin: Plugin<[ToolmarkPluginOptions]> = {
  install(app: App, { toolmark, consumers = [] }: ToolmarkPluginOptions) {
    app.provide(TOOLMARK_KEY, toolmark)
    const detach = consumers.map((consumer) => toolmark.use(consumer))
    const cleanup = () => {
      for (const dispose of detach.splice(0)) dispose()
    }
    if (typeof app.onUnmount === 'function') {
      app.onUnmount(cleanup)
    } else {
      // Vue < 3.5 has no app.onUnmount.
      const unmount = app.unmount
      app.unmount = () => {
        cleanup()
        unmount()
      }
    }
  },
}
