import type { StandardSchemaV1 } from '@standard-schema/spec'
import { cancelled, error, invalid, ok, type RunResult, refused, type ToolDefinition } from '@toolmark/core'
import {
  NAVIGATION_NOT_ALLOWED,
  type NavigationContractOptions,
  type NavigationInput,
  navigationDescription,
  navigationInputSchema,
  resolveNavigation,
} from '@toolmark/core/adapter'
import type { InertiaPageLike, InertiaRouterLike } from './types.ts'

/** Options of {@link navigationTool}: the shared contract's `pages` and `allow`, and the tool's texts. */
export interface NavigationToolOptions<Page extends string = string> extends NavigationContractOptions<Page> {
  /** The tool's local name. Default `'navigate'`. */
  name?: string
  /** The LLM-facing description. Default: a sentence saying it opens a page of this site (naming `pages`). */
  description?: string
  /** User-facing title. */
  title?: string
}

export type { NavigationInput }

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
export { NAVIGATION_NOT_ALLOWED }
/**
 * The refusal message when the URL answers an HTTP error (status 400 or more) or something that is
 * not an Inertia page: the current page stays, and Inertia shows no error page or modal.
 */
export const NAVIGATION_NO_PAGE = 'No page of this site answers at this URL'

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
  const names = options.pages ? (Object.keys(options.pages) as Page[]) : []
  return {
    name: options.name ?? 'navigate',
    description: options.description ?? navigationDescription(names),
    ...(options.title === undefined ? {} : { title: options.title }),
    input: navigationInputSchema(names),
    run: (input, ctx) => {
      const target = resolveNavigation(input, options)
      if (!(target instanceof URL)) return target
      const { replace } = input
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
