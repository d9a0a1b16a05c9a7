import { describe, expect, it, onTestFinished } from 'vitest'
import { ScriptedProvider } from '../../__tests__/support/scripted-provider.ts'
import { createToolmarkServer, type SessionCookieOptions } from '../../index.ts'
import { SESSION_COOKIE } from '../session.ts'

/*
 * The demo session cookie's `Secure` attribute (http/session.ts): from the request's scheme, from a
 * trusted proxy's `X-Forwarded-Proto`, or set explicitly.
 */

/** The `Set-Cookie` of a new demo session created at `origin`, with `headers`. */
async function sessionCookie(
  origin: string,
  options: { sessionCookie?: SessionCookieOptions; headers?: Record<string, string> } = {},
): Promise<string> {
  const server = createToolmarkServer({
    provider: new ScriptedProvider([]),
    log: () => {},
    ...(options.sessionCookie ? { sessionCookie: options.sessionCookie } : {}),
  })
  onTestFinished(() => server.close())
  const response = await server.fetch(
    new Request(`${origin}/api/conversations`, { method: 'POST', headers: options.headers ?? {} }),
  )
  expect(response.status).toBe(201)
  const header = response.headers.get('set-cookie')!
  expect(header.startsWith(`${SESSION_COOKIE}=`)).toBe(true)
  return header
}

const attributes = (header: string): string[] => header.split('; ').slice(1)

describe('session cookie Secure attribute', () => {
  it('is set for a request that came over HTTPS, and not over HTTP', async () => {
    expect(attributes(await sessionCookie('https://localhost'))).toEqual([
      'Max-Age=604800',
      'Path=/',
      'HttpOnly',
      'Secure',
      'SameSite=Lax',
    ])
    expect(attributes(await sessionCookie('http://localhost:3000'))).toEqual([
      'Max-Age=604800',
      'Path=/',
      'HttpOnly',
      'SameSite=Lax',
    ])
  })

  it('reads X-Forwarded-Proto only from a proxy the options trust', async () => {
    const https = { 'x-forwarded-proto': 'https' }
    expect(attributes(await sessionCookie('http://localhost', { headers: https }))).not.toContain('Secure')
    expect(
      attributes(
        await sessionCookie('http://localhost', { headers: https, sessionCookie: { trustProxy: true } }),
      ),
    ).toContain('Secure')
    // The first value is the browser's scheme (each proxy appends its own).
    const chain = { 'x-forwarded-proto': 'HTTPS, http' }
    expect(
      attributes(
        await sessionCookie('http://localhost', { headers: chain, sessionCookie: { trustProxy: true } }),
      ),
    ).toContain('Secure')
    const http = { 'x-forwarded-proto': 'http' }
    expect(
      attributes(
        await sessionCookie('http://localhost', { headers: http, sessionCookie: { trustProxy: true } }),
      ),
    ).not.toContain('Secure')
    // A trusted proxy that sends no header: the request's own scheme decides.
    expect(
      attributes(await sessionCookie('https://localhost', { sessionCookie: { trustProxy: true } })),
    ).toContain('Secure')
  })

  it('follows an explicit secure option whatever the scheme', async () => {
    expect(
      attributes(await sessionCookie('http://localhost', { sessionCookie: { secure: true } })),
    ).toContain('Secure')
    expect(
      attributes(await sessionCookie('https://localhost', { sessionCookie: { secure: false } })),
    ).not.toContain('Secure')
  })
})
