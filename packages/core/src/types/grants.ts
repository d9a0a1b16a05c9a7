/** Grants: approvals a user chose to remember ("allow for this conversation", "always for N days"). */
import type { Caller } from './policy.ts'

/**
 * How long an approval counts: `'once'` (the default) for this call only, `'conversation'` for the
 * calls that carry the same `conversation` id, `{ days }` (a whole number from 1 to 365) for every
 * call until then. Only a tool declared `grantable` can be remembered.
 */
export type Remember = 'once' | 'conversation' | { days: number }

/** A caller a grant can be bound to (`human` never needs one). */
export type GrantCaller = Exclude<Caller, 'human'>

/**
 * A remembered approval. It lets calls of one tool, from one kind of caller, run without a
 * confirmation card while the tool stays the same (same fingerprint) and the grant lasts.
 */
export interface Grant {
  /** The store's id for this grant: what `revoke` takes and what a call's `result` event names. */
  id: string
  /** The tool's full name. */
  tool: string
  /** The tool's title when it has one, for lists. */
  title?: string
  /** `toolFingerprint` of the tool when it was approved: a changed tool asks again. */
  fingerprint: string
  /** The kind of caller the user approved (a grant for `inapp` never lets `mcp` through). */
  caller: GrantCaller
  /** Set for a grant "for this conversation": only calls carrying this conversation id match. */
  conversation?: string
  /** Epoch milliseconds when it was created. */
  createdAt: number
  /** Epoch milliseconds when it ends (`{ days }` grants). A grant with neither this nor `conversation` matches nothing. */
  expiresAt?: number
}

/** A grant before its store gave it an id and a creation time. */
export type NewGrant = Omit<Grant, 'id' | 'createdAt'>

/** What the registry looks a grant up by. */
export interface GrantQuery {
  tool: string
  fingerprint: string
  caller: GrantCaller
  /** The call's conversation id (`CallOptions.conversation`), when it has one. */
  conversation?: string
}

/**
 * Where grants live (the `grants` option of `createToolmark`): `createGrantStore()` from
 * `@toolmark/core/grants` keeps them in memory or localStorage, `@toolmark/bridge/grants` on the
 * server for the signed-in user. `find` is synchronous (over what the store holds); the registry
 * checks what it returns again, so a store cannot widen a grant.
 */
export interface GrantStore {
  /** A live grant that matches the query, or undefined. */
  find(query: GrantQuery): Grant | undefined
  /** Stores a grant the user chose when approving. */
  add(grant: NewGrant): Grant | Promise<Grant>
  /** Removes a grant: its tool asks again. Unknown ids are ignored. */
  revoke(id: string): void | Promise<void>
  /** The grants, newest first; the array changes identity only when they change. */
  list(): readonly Grant[]
  /** Called after every change; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void
}
