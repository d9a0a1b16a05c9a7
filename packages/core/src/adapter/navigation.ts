import type { StandardSchemaV1 } from '@standard-schema/spec'
import { fromJsonSchema } from '../schema/json-schema.ts'
import { invalid, refused } from '../tool/result.ts'
import type { InvalidResult, RefusedResult } from '../types.ts'

/**
 * The input of every adapter's navigation tool (`@toolmark/next`, `@toolmark/inertia`): `page`, one of
 * the app's named pages, or `url`, another same-origin path; and whether to replace the current
 * history entry.
 */
export interface NavigationInput<Page extends string = never> {
  /** One of the `pages` names (only when the tool has `pages`). */
  page?: Page
  /** A same-origin path or URL, e.g. `/challenges/3`. Required when the tool has no `pages`. */
  url?: string
  /** Replace the current history entry instead of pushing one. */
  replace?: boolean
}

/** What a navigation tool is configured with, whatever the router. */
export interface NavigationContractOptions<Page extends string> {
  /**
   * The app's known pages, name → same-origin path (`{ settings: '/settings' }`). The input then offers
   * `page` as an enum of these names, so the model picks a real page instead of building a path from
   * the user's words; `url` stays for any other path of the site.
   */
  pages?: Readonly<Record<Page, string>>
  /**
   * Which same-origin URLs the agent may open (`pages` included). Default: every same-origin URL. A
   * URL on another origin, or whose path starts with `//`, is always refused, whatever this returns.
   */
  allow?: (url: URL) => boolean
}

/** The refusal message for URLs outside the site or outside `allow`. */
export const NAVIGATION_NOT_ALLOWED = 'This URL cannot be opened from here'

const URL_SCHEMA = { type: 'string', minLength: 1, maxLength: 2048 } as const

/** The input schema of a navigation tool with these page names (none: `url` is required). */
export function navigationInputSchema<Page extends string>(
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

/** The default LLM-facing description of a navigation tool with these page names. */
export function navigationDescription(names: readonly string[]): string {
  return names.length > 0
    ? `Open another page of this site (an in-app navigation, like clicking a link): pass page, one of ${names.join(', ')}; or url, another path of this site. The page tools change to the new page’s tools.`
    : 'Open another page of this site (an in-app navigation, like clicking a link). Pass the path, e.g. /challenges/3. The page tools change to the new page’s tools.'
}

/** The issue answered for a `url` that is neither a path, a query, a fragment nor an absolute URL. */
export const NAVIGATION_NOT_A_PATH = 'Pass a path that starts with /, e.g. /challenges/3'

/** A path (`/x`), a query or fragment of this page (`?x`, `#x`), or an absolute URL (`https:…`). */
const PATH_OR_URL = /^(?:[/?#]|[a-z][a-z\d+.-]*:)/i

/**
 * The one rule every navigation tool checks before it asks its router to go anywhere. Returns the
 * absolute URL to visit (exactly as checked: never hand the router its path alone, which it would
 * resolve again), or the result to answer instead:
 * - both or neither of `page` and `url`, or a URL that does not parse → `invalid`;
 * - a `url` that is a bare word (`dark theme`, `settings`) rather than a path → `invalid`
 *   ({@link NAVIGATION_NOT_A_PATH}): a word is resolved against the current page, so it would open a page
 *   that does not exist;
 * - another origin, a path starting with `//` (another host to whoever resolves it again as a path),
 *   a URL `allow` rejects, or no page to resolve against (no DOM) → refused `not_allowed`
 *   ({@link NAVIGATION_NOT_ALLOWED}).
 */
export function resolveNavigation<Page extends string>(
  input: NavigationInput<Page>,
  options: NavigationContractOptions<Page>,
  base: string | undefined = globalThis.location?.href,
): URL | InvalidResult | RefusedResult {
  const { page, url } = input
  const pages = options.pages
  if (page !== undefined && url !== undefined) {
    return invalid([{ path: 'url', message: 'Pass page or url, not both' }])
  }
  const href = page !== undefined ? pages?.[page] : url
  if (href === undefined) {
    const names = pages ? Object.keys(pages) : []
    return invalid([{ path: 'page', message: `Pass page (one of: ${names.join(', ')}) or url` }])
  }
  if (page === undefined && !PATH_OR_URL.test(href)) {
    return invalid([{ path: 'url', message: NAVIGATION_NOT_A_PATH }])
  }
  let target: URL
  try {
    target = new URL(href, base)
  } catch {
    return invalid([{ path: page !== undefined ? 'page' : 'url', message: 'Invalid URL' }])
  }
  if (
    base === undefined ||
    target.origin !== new URL(base).origin ||
    target.pathname.startsWith('//') ||
    options.allow?.(target) === false
  ) {
    return refused('not_allowed', NAVIGATION_NOT_ALLOWED)
  }
  return target
}
