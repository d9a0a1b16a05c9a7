import type { InertiaPageLike } from './types.ts'

/** Inertia 3's initial page: `<script data-page="app" type="application/json">`, if present and valid. */
export function initialPageFromDocument(id = 'app'): InertiaPageLike | undefined {
  const script = globalThis.document?.querySelector(
    `script[data-page=${JSON.stringify(id)}][type="application/json"]`,
  )
  if (!script?.textContent) return undefined
  try {
    const page = JSON.parse(script.textContent) as unknown
    return isPage(page) ? page : undefined
  } catch {
    return undefined
  }
}

/** True for an object with a string `component` and `url`. */
export function isPage(value: unknown): value is InertiaPageLike {
  const page = value as InertiaPageLike | null
  return (
    typeof page === 'object' &&
    page !== null &&
    typeof page.component === 'string' &&
    typeof page.url === 'string'
  )
}
