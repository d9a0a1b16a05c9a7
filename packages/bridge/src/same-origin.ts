/**
 * `value` resolved against `base` (default: none, then it must be absolute), as an href, when it is an
 * http(s) URL without credentials on the same origin as `base`. Otherwise throws a `TypeError` whose
 * message starts with `label` (e.g. `echoTransport: postUrl`): a cross-origin URL would send the page's
 * results, and its cookies, to another site.
 */
export function sameOriginUrl(label: string, value: unknown, base: string | undefined): string {
  const fail = (why: string): never => {
    throw new TypeError(`${label} ${JSON.stringify(value)} ${why}`)
  }
  if (typeof value !== 'string' || value === '') return fail('must be a non-empty string')
  let url: URL
  try {
    url = base === undefined ? new URL(value) : new URL(value, base)
  } catch {
    return fail(
      base === undefined ? 'must be an absolute URL when there is no location' : 'is not a valid URL',
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('must be an http(s) URL')
  if (url.username !== '' || url.password !== '') return fail('must not carry credentials')
  if (base !== undefined && url.origin !== new URL(base).origin) {
    return fail(`must be same-origin with ${new URL(base).origin} (cross-origin would leak results)`)
  }
  return url.href
}
