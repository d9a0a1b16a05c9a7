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
export interface NavigationToolOptions {
  /** The tool's local name. Default `'navigate'`. */
  name?: string
  /** The LLM-facing description. Default: a sentence saying it opens a page of this site. */
  description?: string
  /** User-facing title. */
  title?: string
  /**
   * Which same-origin URLs the agent may open. Default: every same-origin URL. A URL on another
   * origin is always refused (`not_allowed`), whatever this returns.
   */
  allow?: (url: URL) => boolean
}

/** The navigation tool's input. */
export interface NavigationInput {
  /** A same-origin path or URL, e.g. `/challenges/3`. */
  url: string
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

/** The input schema (a JSON Schema compiled by the core, so the package stays dependency-free). */
const schema: StandardSchemaV1<unknown, NavigationInput> = fromJsonSchema<NavigationInput>({
  type: 'object',
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: 'A path of this site, e.g. /challenges/3',
    },
    replace: { type: 'boolean', description: 'Replace the current history entry' },
  },
  required: ['url'],
  additionalProperties: false,
})

/**
 * A tool that opens a page of the site with an Inertia visit (`router.visit(url)`, a GET).
 *
 * It answers `ok({ component, url })` once the new page is in place (the visit's `onSuccess`), so
 * register it in a scope that outlives pages (the binding's layout scope does). Other outcomes:
 * a visit the app cancels (a `before` listener returning false) → refused `not_allowed`
 * ({@link NAVIGATION_CANCELLED}); another origin or a URL `allow` rejects → refused `not_allowed`
 * ({@link NAVIGATION_NOT_ALLOWED}); a visit interrupted by another visit or aborted by the call's
 * signal → cancelled `signal`; validation errors → invalid; an HTTP or network failure → error.
 */
export function navigationTool(
  router: InertiaRouterLike,
  options: NavigationToolOptions = {},
): ToolDefinition<typeof schema, NavigationOutput> {
  return {
    name: options.name ?? 'navigate',
    description:
      options.description ??
      'Open another page of this site (an in-app navigation, like clicking a link). Pass the path, e.g. /challenges/3. The page tools change to the new page’s tools.',
    ...(options.title === undefined ? {} : { title: options.title }),
    input: schema,
    run: ({ url, replace }, ctx) => {
      const base = globalThis.location?.href
      let target: URL
      try {
        target = new URL(url, base)
      } catch {
        return invalid([{ path: 'url', message: 'Invalid URL' }])
      }
      if (base === undefined || target.origin !== new URL(base).origin || options.allow?.(target) === false) {
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
        router.visit(target.pathname + target.search + target.hash, {
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
