// "@toolmark/devtools": the entry hook an app's main bundle gets. It only listens for the shortcut
// (and, when asked, shows a launcher button); the panel and its recorder are a separate chunk,
// imported when the panel opens. While the panel is closed nothing observes the registry.
import type { ConsumerHost, GrantStore, ToolmarkConsumer } from '@toolmark/core'

declare const process: { env: { NODE_ENV?: string } }

/** Options of {@link devtools}. */
export interface DevtoolsOptions {
  /** Keep the devtools in a production build (`process.env.NODE_ENV === 'production'`). Default false: dropped. */
  production?: boolean
  /** Open the panel as soon as it is attached. Default false. */
  open?: boolean
  /** Show a small "Toolmark devtools (Alt+Shift+D)" button at the bottom left that opens the panel. Default false. */
  launcher?: boolean
  /** The registry's grant store (`createToolmark({ grants })`): the Grants tab lists its grants with Revoke buttons. */
  grants?: GrantStore
}

/** What the panel chunk exports (see `panel.ts`). */
export interface PanelModule {
  openPanel(host: ConsumerHost, onClose: () => void, grants?: GrantStore): { close(): void }
}

/**
 * The devtools as a consumer: `tm.use(devtools())`. Alt+Shift+D (or the launcher) opens the panel,
 * which loads on demand and records while it is open; closing it detaches everything. In a
 * production build it does nothing unless `production: true`.
 */
export function devtools(options: DevtoolsOptions = {}): ToolmarkConsumer {
  return (host) => {
    if (process.env.NODE_ENV === 'production' && !options.production) return undefined
    let panel: { close(): void } | undefined
    // Set while the panel chunk loads, so a second press does not open a second panel.
    let loading = false
    let gone = false
    const toggle = (): void => {
      if (panel) return panel.close()
      if (loading) return
      loading = true
      import('./panel.ts').then((m: PanelModule) => {
        loading = false
        if (!gone) panel = m.openPanel(host, () => (panel = undefined), options.grants)
      })
    }
    const onKey = (e: KeyboardEvent): void => {
      if (e.altKey && e.shiftKey && e.code === 'KeyD') {
        e.preventDefault()
        toggle()
      }
    }
    addEventListener('keydown', onKey)
    const button = options.launcher ? document.createElement('button') : undefined
    if (button) {
      button.textContent = 'Toolmark devtools (Alt+Shift+D)'
      button.style.cssText = 'position:fixed;left:0;bottom:0;z-index:2147483646'
      button.onclick = toggle
      document.body.append(button)
    }
    if (options.open) toggle()
    return () => {
      gone = true
      removeEventListener('keydown', onKey)
      button?.remove()
      panel?.close()
    }
  }
}
