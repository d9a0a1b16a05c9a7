/**
 * `@toolmark/bridge/grants`: the signed-in user's grants (remembered approvals), kept by the server's
 * grants routes (`@toolmark/server`, the Laravel package) and read by the registry from a local copy.
 */
import type { Grant, GrantQuery, GrantStore, NewGrant } from '@toolmark/core'
import { grantMatches } from '@toolmark/core/grants'

/** Options of {@link serverGrants}. */
export interface ServerGrantsOptions {
  /** Where the server's API is mounted. Default `/api` (routes `GET/POST /api/grants`, `DELETE /api/grants/:id`). */
  api?: string
  /** Extra request headers (a CSRF token for Laravel's `web` middleware, say). */
  headers?: Record<string, string>
  /** The fetch to use. Default the global `fetch` (same-origin credentials). */
  fetch?: typeof fetch
}

/** A {@link GrantStore} backed by the server: {@link ServerGrants.load} reads the user's grants. */
export interface ServerGrants extends GrantStore {
  /**
   * Reads the user's grants from the server into the local copy the registry looks grants up in.
   * Until it resolves no grant matches (every confirmation is asked). Rejects when the server answers
   * with an error (the local copy is kept).
   */
  load(): Promise<void>
  /** Stores a grant on the server; resolves with the server's grant, rejects when it refuses. */
  add(grant: NewGrant): Promise<Grant>
  /** Revokes a grant on the server; the local copy drops it at once. */
  revoke(id: string): Promise<void>
}

/** The error message of a failed grants request: the server's message when it sent one. */
async function failure(response: Response, what: string): Promise<Error> {
  let message: unknown
  try {
    message = ((await response.json()) as { error?: { message?: unknown } }).error?.message
  } catch {
    message = undefined
  }
  return new Error(`${what} (HTTP ${response.status})${typeof message === 'string' ? `: ${message}` : ''}`)
}

/**
 * The user's grants kept by the server, per signed-in user, so they follow the user across browsers.
 * Pass it as `createToolmark({ grants })` and call `load()` once the user is signed in. The registry
 * checks every grant it finds again (tool, fingerprint, caller, expiry), so a stale copy cannot widen one.
 */
export function serverGrants(options: ServerGrantsOptions = {}): ServerGrants {
  const api = (options.api ?? '/api').replace(/\/+$/, '')
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const headers = { accept: 'application/json', ...options.headers }
  const listeners = new Set<() => void>()
  let grants: readonly Grant[] = Object.freeze([])

  const set = (next: readonly Grant[]): void => {
    grants = Object.freeze([...next])
    for (const listener of [...listeners]) listener()
  }
  const request = (path: string, init: RequestInit = {}) =>
    doFetch(`${api}/grants${path}`, {
      credentials: 'same-origin',
      ...init,
      headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
    })

  return {
    async load() {
      const response = await request('')
      if (!response.ok) throw await failure(response, 'Could not load the grants')
      const body = (await response.json()) as { grants?: unknown }
      set(Array.isArray(body.grants) ? (body.grants as Grant[]) : [])
    },
    find(query: GrantQuery) {
      const now = Date.now()
      return grants.find((g) => grantMatches(g, query, now))
    },
    async add(grant) {
      const response = await request('', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(grant),
      })
      if (!response.ok) throw await failure(response, 'Could not keep the grant')
      const added = ((await response.json()) as { grant: Grant }).grant
      // The server replaced the user's grant for the same tool, caller and conversation: so does the copy.
      set([
        added,
        ...grants.filter(
          (g) => g.tool !== added.tool || g.caller !== added.caller || g.conversation !== added.conversation,
        ),
      ])
      return added
    },
    async revoke(id) {
      const response = await request(`/${encodeURIComponent(id)}`, { method: 'DELETE' })
      if (!response.ok && response.status !== 404) throw await failure(response, 'Could not revoke the grant')
      if (grants.some((g) => g.id === id)) set(grants.filter((g) => g.id !== id))
    },
    list: () => grants,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
}
