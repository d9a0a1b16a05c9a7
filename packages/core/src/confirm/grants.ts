import { clock } from '../clock.ts'
import { toolFingerprint } from '../grants/fingerprint.ts'
import { grantMatches, grantOf, isRemember } from '../grants/match.ts'
import type { Entry } from '../tool/entry.ts'
import type { Caller, ConfirmationCardData, Grant, GrantStore } from '../types.ts'
import type { ConfirmHost } from './host.ts'

/** The call's conversation id: a string, or none. */
export const conversationOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined

/** The grant store when `entry` may be remembered: `grantable`, never destructive. */
export function grantStoreFor(tm: ConfirmHost, entry: Entry): GrantStore | undefined {
  return entry.def.grantable === true && entry.hintClass !== 'destructive' ? tm.options.grants : undefined
}

/** The fingerprint of the registration: what the user approved. */
export function fingerprintOf(entry: Entry): string {
  return toolFingerprint({
    name: entry.name,
    description: entry.def.description,
    inputSchema: entry.full(() => {}).inputSchema,
    hints: entry.def.hints,
  })
}

/**
 * The live grant that lets this call skip its confirmation, or undefined. What the store answers is
 * checked again here. A store that throws asks (reported as `grant_store_failed`).
 */
export function findGrant(
  tm: ConfirmHost,
  entry: Entry,
  caller: Caller,
  conversation: string | undefined,
): Grant | undefined {
  const store = grantStoreFor(tm, entry)
  if (!store || caller === 'human') return undefined
  try {
    const query = {
      tool: entry.name,
      fingerprint: fingerprintOf(entry),
      caller,
      ...(conversation !== undefined && { conversation }),
    }
    const grant = store.find(query)
    return grantMatches(grant, query, clock.now()) ? grant : undefined
  } catch (err) {
    tm.report('grant_store_failed', 'The grant store failed to look up a grant; asking', {
      tool: entry.name,
      cause: err,
    })
    return undefined
  }
}

/**
 * Keeps an approval as a grant when the approver asked to remember it. An invalid `remember`, or
 * one for a tool that is not grantable, counts once (`invalid_grant` warning); a store that fails
 * reports `grant_store_failed`. Never throws: the approved call runs either way.
 */
export function rememberApproval(
  tm: ConfirmHost,
  entry: Entry,
  caller: Caller,
  conversation: string | undefined,
  remember: unknown,
): void {
  if (remember === undefined || remember === 'once') return
  const store = grantStoreFor(tm, entry)
  if (!store || caller === 'human' || !isRemember(remember)) {
    tm.report(
      'invalid_grant',
      `Approval of "${entry.name}" counted once: remember must be 'once', 'conversation' or { days: 1-365 } for a grantable tool with a grant store`,
      { tool: entry.name, level: 'warning' },
    )
    return
  }
  const grant = grantOf(
    remember,
    { tool: entry.name, title: entry.def.title, fingerprint: fingerprintOf(entry), caller, conversation },
    clock.now(),
  )
  if (!grant) {
    tm.report('invalid_grant', `Approval of "${entry.name}" counted once: the call has no conversation`, {
      tool: entry.name,
      level: 'warning',
    })
    return
  }
  const failed = (err: unknown): void =>
    tm.report('grant_store_failed', 'The grant store failed to add a grant', { tool: entry.name, cause: err })
  try {
    const added = store.add(grant)
    if (added instanceof Promise) added.catch(failed)
  } catch (err) {
    failed(err)
  }
}

/** Marks a card `grantable` (with the call's conversation) when its approval may be remembered. */
export function offerGrant<C extends ConfirmationCardData>(
  tm: ConfirmHost,
  entry: Entry,
  card: C,
  conversation: string | undefined,
): C {
  if (grantStoreFor(tm, entry)) {
    card.grantable = true
    if (conversation !== undefined) card.conversation = conversation
  }
  return card
}
