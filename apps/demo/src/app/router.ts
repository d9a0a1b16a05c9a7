/** The pages of the demo. */
export type Page = 'challenges' | 'settings'

/** A tiny history-based router (paths `/` and `/settings`). */
export interface Router {
  getPage(): Page
  subscribe(listener: () => void): () => void
  navigate(page: Page): void
}

const pageFromPath = (path: string): Page =>
  path.replace(/\/+$/, '') === '/settings' ? 'settings' : 'challenges'
const pathFromPage = (page: Page): string => (page === 'settings' ? '/settings' : '/')

/** Creates a router bound to `window.history`; `dispose` removes its `popstate` listener. */
export function createRouter(): Router & { dispose(): void } {
  let page = pageFromPath(location.pathname)
  const listeners = new Set<() => void>()
  const emit = (): void => {
    for (const listener of [...listeners]) listener()
  }
  const onPop = (): void => {
    page = pageFromPath(location.pathname)
    emit()
  }
  window.addEventListener('popstate', onPop)
  return {
    getPage: () => page,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    navigate(next) {
      if (next === page) return
      page = next
      history.pushState(null, '', pathFromPage(next))
      emit()
    },
    dispose: () => window.removeEventListener('popstate', onPop),
  }
}
