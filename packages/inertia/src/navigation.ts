import type { StandardSchemaV1 } from '@standard-schema/spec'
import {
  cancelled,
  error,
  fromJsonSchema,
  invalid,
  ok,
  type RunResult,
  refused,
  type ToolDefinition,
} from '@toolmark/core'
import type { InertiaPageLike, InertiaRouterLike } from './types.ts'

/** Options of {@link navigationTool}. */
export interface NavigationToolOptions<Page extends string = string> {
  /** The tool's local name. Default `'navigate'`. */
  name?: string
  /** The LLM-facing description. Default: a sentence saying it opens a page of this site (naming `pages`). */
  description?: string
  /** User-facing title. */
  title?: string
  /**
   * The app's known pages, name → same-origin path (`{ settings: '/settings', challenges: '/challenges' }`).
   * The input schema then offers `page` as an enum of these names, so the model picks a real page
   * instead of building a path from the user's words; `url` stays for any other path of the site.
   */
  pages?: Readonly<Record<Page, string>>
  /**
   * Which same-origin URLs the agent may open (`pages` included). Default: every same-origin URL. A
   * URL on another origin, or whose path starts with `//`, is always refused (`not_allowed`),
   * whatever this returns.
   */
  allow?: (url: URL) => boolean
}

/** The navigation tool's input: `url`, or (with the `pages` option) `page` or `url`. */
export interface NavigationInput<Page extends string = never> {
  /** One of the `pages` names (only with the `pages` option). */
  page?: Page
  /** A same-origin path or URL, e.g. `/challenges/3`. Required without the `pages` option. */
  url?: string
  /** Replace the current history entry instead of pushing one. */
  replace?: boolean
}

/** What the navigation tool answers with once the new page is in place. */
export interface NavigationOutput {
  /** The new page's component. */
  component: string
  /** The new page's URL. */
  url: string
}

/** The refusal message when the app's `before` handler (or `onBefore`) cancelled the visit. */
export const NAVIGATION_CANCELLED = 'The page cancelled the navigation'
/** The refusal message for URLs outside the site or outside `allow`. */
export const NAVIGATION_NOT_ALLOWED = 'This URL cannot be opened from here'
/**
 * The refusal message when the URL answers an HTTP error (status 400 or more) or something that is
 * not an Inertia page: the current page stays, and Inertia shows no error page or modal.
 */
export const NAVIGATION_NO_PAGE = 'No page of this site answers at this URL'

const URL_SCHEMA = { type: 'string', minLength: 1, maxLength: 2048 } as const

/** The input schema (a JSON Schema compiled by the core, so the package stays dependency-free). */
function inputSchema<Page extends string>(
  names: readonly Page[],
): StandardSchemaV1<unknown, NavigationInput<Page>> {
  const replace = { type: 'boolean', description: 'Replace the current history entry' }
  if (names.length === 0) {
    return fromJsonSchema<NavigationInput<Page>>({
      type: 'object',
      properties: { url: { ...URL_SCHEMA, description: 'A path of this site, e.g. /challenges/3' }, replace },
      required: ['url'],
      additionalProperties: false,
    })
  }
  // "page or url" is checked when the tool runs: some model APIs refuse oneOf at the top of an input schema.
  return fromJsonSchema<NavigationInput<Page>>({
    type: 'object',
    properties: {
      page: { enum: [...names], description: `The page to open, one of: ${names.join(', ')}` },
      url: { ...URL_SCHEMA, description: 'Instead of page: another path of this site, e.g. /challenges/3' },
      replace,
    },
    additionalProperties: false,
  })
}

/**
 * A tool that opens a page of the site with an Inertia visit (`router.visit(url)`, a GET).
 *
 * It answers `ok({ component, url })` once the new page is in place (the visit's `onSuccess`), so
 * register it in a scope that outlives pages (the binding's layout scope does). With `pages`, the
 * input is `{ page }` (an enum of their names) or `{ url }`. The URL is resolved against the page
 * and visited exactly as checked. Other outcomes: a visit the app cancels (a `before` listener
 * returning false) → refused `not_allowed` ({@link NAVIGATION_CANCELLED}); another origin, a path
 * starting with `//` or a URL `allow` rejects → refused `not_allowed` ({@link NAVIGATION_NOT_ALLOWED});
 * an HTTP error or a response that is not an Inertia page → refused `not_allowed`
 * ({@link NAVIGATION_NO_PAGE}), with no error modal; a visit interrupted by another visit or aborted
 * by the call's signal → cancelled `signal`; validation errors (and neither or both of `page` and
 * `url`) → invalid; a network failure → error.
 */
export function navigationTool<Page extends string = never>(
  router: InertiaRouterLike,
  options: NavigationToolOptions<Page> = {},
): ToolDefinition<StandardSchemaV1<unknown, NavigationInput<Page>>, NavigationOutput> {
  const pages = options.pages
  const names = pages ? (Object.keys(pages) as Page[]) : []
  return {
    name: options.name ?? 'navigate',
    description:
      options.description ??
      (names.length > 0
        ? `Open another page of this site (an in-app navigation, like clicking a link): pass page, one of ${names.join(', ')}; or url, another path of this site. The page tools change to the new page’s tools.`
        : 'Open another page of this site (an in-app navigation, like clicking a link). Pass the path, e.g. /challenges/3. The page tools change to the new page’s tools.'),
    ...(options.title === undefined ? {} : { title: options.title }),
    input: inputSchema(names),
    run: ({ page, url, replace }, ctx) => {
      if (page !== undefined && url !== undefined) {
        return invalid([{ path: 'url', message: 'Pass page or url, not both' }])
      }
      const href = page !== undefined ? pages?.[page] : url
      if (href === undefined) {
        return invalid([{ path: 'page', message: `Pass page (one of: ${names.join(', ')}) or url` }])
      }
      const base = globalThis.location?.href
      let target: URL
      try {
        target = new URL(href, base)
      } catch {
        return invalid([{ path: page !== undefined ? 'page' : 'url', message: 'Invalid URL' }])
      }
      // A path starting with `//` is another host to whoever resolves it again as a path (Inertia's
      // page URL, a reload): refused like another origin.
      if (
        base === undefined ||
        target.origin !== new URL(base).origin ||
        target.pathname.startsWith('//') ||
        options.allow?.(target) === false
      ) {
        return refused('not_allowed', NAVIGATION_NOT_ALLOWED)
      }
      return new Promise((resolve) => {
        let settled = false
        const settle = (result: RunResult<NavigationOutput>): void => {
          if (settled) return
          settled = true
          ctx.signal.removeEventListener('abort', onAbort)
          resolve(result)
        }
        let passed = false
        let cancelToken: { cancel(): void } | undefined
        const onAbort = (): void => {
          cancelToken?.cancel()
          settle(cancelled('signal'))
        }
        ctx.signal.addEventListener('abort', onAbort, { once: true })
        // The very URL that was checked, never its path alone (which Inertia would resolve again).
        router.visit(target.href, {
          ...(replace === undefined ? {} : { replace }),
          onBefore: () => {
            // Our listener is added last, so it sees whether an app `before` listener cancelled.
            document.addEventListener(
              'inertia:before',
              (event) => {
                passed = !event.defaultPrevented
              },
              { once: true },
            )
            return undefined
          },
          onCancelToken: (token) => {
            cancelToken = token
          },
          onSuccess: (page: InertiaPageLike) => settle(ok({ component: page.component, url: page.url })),
          // Our own visit's callback, so the app's `httpException` listeners and Inertia's modal never see it.
          onHttpException: () => {
            settle(refused('not_allowed', NAVIGATION_NO_PAGE))
            return false
          },
          onError: (errors: Record<string, string>) =>
            settle(
              invalid(Object.entries(errors).map(([path, message]) => ({ path, message: String(message) }))),
            ),
          onFinish: (visit) => {
            if (visit.cancelled || visit.interrupted) settle(cancelled('signal'))
            else settle(error('Navigation failed'))
          },
        })
        if (!passed) settle(refused('not_allowed', NAVIGATION_CANCELLED))
      })
    },
  }
}
