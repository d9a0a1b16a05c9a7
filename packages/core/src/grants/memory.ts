import { clock } from '../clock.ts'
import { newId } from '../ids.ts'
import type { Grant, GrantQuery, GrantStore, NewGrant } from '../types.ts'
import { grantMatches } from './match.ts'

/** The localStorage key {@link createGrantStore} keeps grants under by default. */
export const DEFAULT_GRANTS_KEY = 'toolmark:grants'

/** Options of {@link createGrantStore}. */
export interface GrantStoreOptions {
  /**
   * Where grants persist across reloads (`localStorage`, `sessionStorage`, or anything with the same
   * two methods). Without it they live in memory until the page unloads. A storage that throws or
   * holds malformed data is treated as empty.
   */
  storage?: Pick<Storage, 'getItem' | 'setItem'>
  /** The storage key. Default {@link DEFAULT_GRANTS_KEY}. */
  key?: string
}

const CALLERS = new Set(['inapp', 'webmcp', 'mcp', 'tour', 'test'])

/** A stored value that has a grant's shape (anything else in storage is dropped). */
function isGrant(g: unknown): g is Grant {
  const x = g as Partial<Grant> | null
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.id === 'string' &&
    typeof x.tool === 'string' &&
    typeof x.fingerprint === 'string' &&
    typeof x.caller === 'string' &&
    CALLERS.has(x.caller) &&
    typeof x.createdAt === 'number' &&
    (x.expiresAt === undefined || typeof x.expiresAt === 'number') &&
    (x.conversation === undefined || typeof x.conversation === 'string') &&
    (x.title === undefined || typeof x.title === 'string')
  )
}

/** Drops grants whose time is up. */
function live(grants: readonly Grant[], now: number): Grant[] {
  return grants.filter((g) => g.expiresAt === undefined || now < g.expiresAt)
}

/**
 * A grant store for apps without a server: grants live in memory, or in `storage` (such as
 * `localStorage`) when given, so they are per browser profile rather than per signed-in user. Pass
 * it as `createToolmark({ grants })`; render `list()` with revoke buttons so the user can take a
 * grant back. Expired grants never match and are dropped on the next change or load.
 */
export function createGrantStore(options: GrantStoreOptions = {}): GrantStore {
  const { storage } = options
  const key = options.key ?? DEFAULT_GRANTS_KEY
  const listeners = new Set<() => void>()
  let grants: readonly Grant[] = Object.freeze(load())

  function load(): Grant[] {
    try {
      const parsed: unknown = JSON.parse(storage?.getItem(key) ?? '[]')
      return Array.isArray(parsed) ? live(parsed.filter(isGrant), clock.now()) : []
    } catch {
      return []
    }
  }
  function set(next: Grant[]): void {
    grants = Object.freeze(next)
    try {
      storage?.setItem(key, JSON.stringify(grants))
    } catch {
      // A full or blocked storage keeps the grants in memory for this page.
    }
    for (const listener of [...listeners]) listener()
  }

  return {
    find(query: GrantQuery) {
      const now = clock.now()
      return grants.find((g) => grantMatches(g, query, now))
    },
    add(grant: NewGrant) {
      const now = clock.now()
      const added: Grant = { ...grant, id: newId(), createdAt: now }
      // One grant per tool, caller and conversation: the newest replaces an older one.
      const kept = live(grants, now).filter(
        (g) => g.tool !== added.tool || g.caller !== added.caller || g.conversation !== added.conversation,
      )
      set([added, ...kept])
      return added
    },
    revoke(id: string) {
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
