import type { Grant, GrantCaller, GrantQuery, NewGrant, Remember } from '../types.ts'

const DAY_MS = 86_400_000

/** The most days an approval can be remembered for. */
export const MAX_GRANT_DAYS = 365

/**
 * Whether `grant` lets a call matching `query` run at `now` (epoch ms): same tool, same
 * fingerprint, same caller kind, not expired, and the same conversation when it is bound to one.
 * A grant with neither an expiry nor a conversation matches nothing.
 */
export function grantMatches(grant: Grant | undefined, query: GrantQuery, now: number): boolean {
  if (!grant || typeof grant !== 'object') return false
  if (grant.tool !== query.tool || grant.fingerprint !== query.fingerprint || grant.caller !== query.caller)
    return false
  const { expiresAt, conversation } = grant
  if (expiresAt === undefined && conversation === undefined) return false
  if (expiresAt !== undefined && !(now < expiresAt)) return false
  return conversation === undefined || conversation === query.conversation
}

/** Whether `remember` is `'once'`, `'conversation'` or `{ days }` with a whole number from 1 to 365. */
export function isRemember(remember: unknown): remember is Remember {
  if (remember === 'once' || remember === 'conversation') return true
  const days = (remember as { days?: unknown } | null)?.days
  return (
    typeof remember === 'object' &&
    Number.isInteger(days) &&
    (days as number) >= 1 &&
    (days as number) <= MAX_GRANT_DAYS
  )
}

/**
 * The grant that remembering an approval adds, or undefined for `'once'`. A `'conversation'`
 * grant needs the call's conversation id; without one the approval counts once (undefined).
 */
export function grantOf(
  remember: Remember,
  call: {
    tool: string
    title?: string | undefined
    fingerprint: string
    caller: GrantCaller
    conversation?: string | undefined
  },
  now: number,
): NewGrant | undefined {
  if (remember === 'once') return undefined
  const base: NewGrant = { tool: call.tool, fingerprint: call.fingerprint, caller: call.caller }
  if (call.title !== undefined) base.title = call.title
  if (remember === 'conversation')
    return call.conversation === undefined ? undefined : { ...base, conversation: call.conversation }
  return { ...base, expiresAt: now + remember.days * DAY_MS }
}
