import type { ToolResult } from '@toolmark/core'
import {
  type ConfirmedMessage,
  DEFAULT_MAX_MESSAGE_BYTES,
  MAX_DEPTH,
  type ManifestMessage,
  type ResultMessage,
  validateMessage,
} from '@toolmark/protocol'
import {
  CONTEXT_EXTENSION,
  type ExtensionToAgentMessage,
  MAX_PROGRESS_PER_SECOND,
  PROGRESS_EXTENSION,
  type ProgressMessage,
  validateExtensionMessage,
} from '@toolmark/protocol/extensions'
import { boundText } from '../shared/bounds.ts'
import type { Clock } from '../shared/clock.ts'
import { nestedDeeperThan } from '../shared/json-depth.ts'
import { logString } from '../shared/log.ts'
import { maskText, scrub } from '../shared/redact.ts'
import type { CallBinding, ConfirmBinding, Store } from '../store/store.ts'
import { receiveContext, takesContext } from './page-context.ts'
import type { Conn, Rejection, RelayEvents, Waiter } from './types.ts'

/**
 * Largest inbound page message, in UTF-8 bytes of its JSON text: the protocol's own limit (1 MiB). A longer
 * message is rejected (`invalid`, `too large`) before it is parsed.
 */
export const MAX_INBOUND_BYTES = DEFAULT_MAX_MESSAGE_BYTES

/** The UTF-8 length of `text`, counted up to `max + 1` at most (a lone surrogate counts 3, as it is encoded). */
export function utf8Length(text: string, max = Number.POSITIVE_INFINITY): number {
  let bytes = 0
  for (let i = 0; i < text.length && bytes <= max; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

/** One page message after the protocol's inbound limits: a plain copy of it, or why it was refused. */
export type Bounded = { ok: true; value: unknown } | { ok: false; detail: string }

/**
 * The protocol's inbound limits on one page message's text: at most {@link MAX_INBOUND_BYTES} UTF-8 bytes and
 * nested at most `MAX_DEPTH` (64) deep, both checked before parsing, and JSON. What `JSON.parse` makes of text is
 * plain data already (no getters, no prototypes; a `__proto__` key is an own property), so it is not copied
 * again. Every instance applies it before a message goes anywhere, another instance included.
 */
export function bound(text: string): Bounded {
  // Every UTF-16 code unit is at least one UTF-8 byte, and at most three.
  if (text.length > MAX_INBOUND_BYTES) return { ok: false, detail: 'too large' }
  if (text.length * 3 > MAX_INBOUND_BYTES && utf8Length(text, MAX_INBOUND_BYTES) > MAX_INBOUND_BYTES)
    return { ok: false, detail: 'too large' }
  if (nestedDeeperThan(text, MAX_DEPTH)) return { ok: false, detail: 'too_deep' }
  try {
    const value: unknown = JSON.parse(text)
    // Only a literal with a 3-digit exponent or 309 digits can pass a double: other messages are not walked.
    return { ok: true, value: MAY_OVERFLOW.test(text) ? finite(value) : value }
  } catch {
    return { ok: false, detail: 'not JSON' }
  }
}

/** A number literal that may be too large for a double (or text that merely looks like one). */
const MAY_OVERFLOW = /[eE]\+?\d{3}|\d{309}/

/**
 * `value` with every number too large for a double (`1e400`, which `JSON.parse` reads as `Infinity`) as `null`,
 * as `JSON.stringify` would write it: the only value of parsed JSON that is not JSON. Changed in place; the
 * common message has none and is returned as it is.
 */
function finite(value: unknown, depth = 0): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i]
      if (typeof v === 'object') finite(v, depth + 1)
      else if (typeof v === 'number' && v - v !== 0) value[i] = null
    }
    return value
  }
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) {
    const v = record[key]
    if (typeof v === 'object') finite(v, depth + 1)
    // An own property: assigning it never reaches a prototype's setter (`__proto__` included).
    else if (typeof v === 'number' && v - v !== 0) record[key] = null
  }
  return value
}

/** What the inbound handlers need from the relay: its store and clock, its events and its bindings. */
export interface InboundHost {
  readonly store: Store
  readonly clock: Clock
  /** How long an approval of a new confirmation is accepted (ms); undefined: until the page ends it. */
  readonly confirmTtlMs: number | undefined
  log(line: string): void
  emit<K extends keyof RelayEvents>(event: K, payload: RelayEvents[K]): void
  /** Removes and returns the request waiting for `callId`, if any. */
  takeWaiter(callId: string): Waiter | undefined
  /** The call's input values at the tool's sensitive paths, when this instance knows them (else empty). */
  callSecrets(callId: string): readonly string[]
  /** Keeps a call's secrets for its confirmation, until it is answered or its time ran out (memory only). */
  keepConfirmSecrets(confirmId: string, secrets: readonly string[]): void
  /** Removes and returns the secrets kept for a confirmation (empty when none are known here). */
  takeConfirmSecrets(confirmId: string): readonly string[]
  /** True when a socket of the conversation still carries `clientId` (here, or on another instance). */
  isOpen(conversationId: string, clientId: string): Promise<boolean>
  /** Hands an accepted result to the instance that waits for the call, when that is another one. */
  forward(binding: CallBinding, result: ToolResult): void
  /** Expires the pending confirmIds of a page load that is gone. */
  expire(conversationId: string, clientId: string): Promise<void>
  /** Settles a call at its deadline: the agent gets the timeout, the page a `cancel`. */
  timeOut(binding: CallBinding): Promise<void>
  /** The conversation's page binding or its page's manifest was written: every copy of it is out of date. */
  pageChanged(conversationId: string): void
  /**
   * A `confirmed` for `binding` was accepted: its pending decision is closed (`dropped`: it came too late). False
   * when another card of the same decision (on another page load) was answered first: this answer must not count.
   */
  decide(binding: ConfirmBinding, state?: 'decided' | 'dropped'): Promise<boolean>
  /** The page load sent a manifest: the pending decisions it has not been asked yet are asked (in the background). */
  reask(
    conversationId: string,
    clientId: string,
    page: { rev: number; tools: ManifestMessage['tools'] },
  ): void
}

/**
 * A `needs_confirmation` result without `changes` gets `changes: []` before validation: the
 * protocol's deferred flow writes `changes?`, so a page that omits it must not wait out its
 * deadline (the Toolmark page always sends it). `value` is the relay's own bounded copy.
 */
function defaultChanges(value: unknown): void {
  if (typeof value !== 'object' || value === null) return
  const message = value as { type?: unknown; result?: unknown }
  if (message.type !== 'result' && message.type !== 'confirmed') return
  const result = message.result
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return
  const r = result as Record<string, unknown>
  if (r.status === 'needs_confirmation' && !Object.hasOwn(r, 'changes')) r.changes = []
}

/** Logs and reports a rejected message; returns false (the message was not accepted). */
function reject(
  host: InboundHost,
  conn: Conn,
  rejection: Omit<Rejection, 'userId' | 'conversationId'>,
): false {
  const full: Rejection = { ...rejection, userId: conn.userId, conversationId: conn.conversationId }
  // Ids and details can come from the page: each is escaped, so none can start a new line.
  host.log(
    `[relay] rejected ${full.type} (${full.reason}) conversation=${full.conversationId}` +
      (full.clientId ? ` clientId=${logString(full.clientId)}` : '') +
      (full.id ? ` id=${logString(full.id)}` : '') +
      (full.detail ? `: ${logString(full.detail)}` : ''),
  )
  host.emit('rejected', full)
  return false
}

/**
 * Handles one inbound text frame of an authenticated socket: bounded copy, validation, then the
 * handler of its type. True when the message was accepted; a rejected one is logged and reported.
 */
export async function receive(host: InboundHost, conn: Conn, text: string): Promise<boolean> {
  const copy = bound(text)
  if (!copy.ok) return refuse(host, conn, copy.detail)
  defaultChanges(copy.value)
  const checked = validateMessage(copy.value, 'toAgent')
  if (!checked.ok) {
    // Not a v1 message: perhaps one of an opt-in extension (a v1 server drops those here).
    const ext = validateExtensionMessage(copy.value, 'toAgent')
    if (ext.ok) return extension(host, conn, ext.message)
    const detail = ext.reason === 'not an extension message' ? checked.reason : ext.reason
    return reject(host, conn, { reason: 'invalid', type: '?', detail })
  }
  const message = checked.message
  switch (message.type) {
    case 'manifest':
      return manifest(host, conn, message)
    case 'changed':
      // The tool list arrives with the next manifest; a `changed` only proves the page is alive.
      if (!(await ownsClient(host, conn, message.clientId, 'changed'))) return false
      conn.clientIds.add(message.clientId)
      return true
    case 'result':
      return result(host, conn, message)
    case 'confirmed':
      return confirmed(host, conn, message)
  }
}

/**
 * A message of an opt-in extension. An offer is answered on the same connection with the extensions this
 * server takes (`progress`, and `context` when the store keeps page contexts); a `progress` message goes to the
 * chat of the call it reports on, a `context` is kept for the page load (page-context.ts).
 */
async function extension(host: InboundHost, conn: Conn, message: ExtensionToAgentMessage): Promise<boolean> {
  if (message.type === 'progress') return progress(host, conn, message)
  if (message.type === 'context')
    return receiveContext(
      { store: host.store, now: () => host.clock.now(), reject: (r) => reject(host, conn, r) },
      conn,
      message,
    )
  if (!(await ownsClient(host, conn, message.clientId, 'extensions'))) return false
  // In the offer's order, as every server answers.
  const accept = message.offer.filter(
    (name) => name === PROGRESS_EXTENSION || (name === CONTEXT_EXTENSION && takesContext(host.store)),
  )
  conn.send({ protocol: 1, type: 'extensions', clientId: message.clientId, accept })
  return true
}

/**
 * How far a call in flight has come. At most `MAX_PROGRESS_PER_SECOND` per page connection are passed on (the
 * rest are dropped, unlogged); it must name a pending call bound to this page load; a call already answered or
 * past its deadline drops it (progress never extends a deadline). Its message is masked like every text the
 * server keeps, and preliminary `data` stays on the page side.
 */
async function progress(host: InboundHost, conn: Conn, message: ProgressMessage): Promise<boolean> {
  const now = host.clock.now()
  const window = conn.progressWindow
  if (!window || now - window.start >= 1000) conn.progressWindow = { start: now, count: 1 }
  else if (++window.count > MAX_PROGRESS_PER_SECOND) return false
  const base = { type: 'progress', id: message.id, clientId: message.clientId }
  const binding = await host.store.getCall(message.id)
  if (!binding) return reject(host, conn, { ...base, reason: 'unknown_id' })
  if (
    binding.userId !== conn.userId ||
    binding.conversationId !== conn.conversationId ||
    binding.clientId !== message.clientId
  )
    return reject(host, conn, { ...base, reason: 'mismatch' })
  if (binding.kind !== 'call' || binding.state !== 'pending' || now > binding.deadlineAt) return false
  const event: RelayEvents['progress'] = {
    conversationId: binding.conversationId,
    toolCallId: binding.toolCallId,
    tool: binding.tool,
  }
  if (message.fraction !== undefined) event.fraction = message.fraction
  if (message.message !== undefined)
    event.message = maskText(scrub(message.message, host.callSecrets(binding.id)))
  if (event.fraction === undefined && event.message === undefined) return true
  host.emit('progress', event)
  return true
}

/**
 * Rejects a page message that broke the protocol's inbound limits (`invalid`, with `detail` such as
 * `too large`), when a transport or another instance refused it before {@link receive} saw it.
 */
export function refuse(host: InboundHost, conn: Conn, detail: string): false {
  return reject(host, conn, { reason: 'invalid', type: '?', detail })
}

/** A clientId is one page load in one conversation: another user's or conversation's is refused. */
async function ownsClient(host: InboundHost, conn: Conn, clientId: string, type: string): Promise<boolean> {
  const known = await host.store.getManifest(clientId)
  if (!known || (known.userId === conn.userId && known.conversationId === conn.conversationId)) return true
  reject(host, conn, {
    reason: 'mismatch',
    type,
    clientId,
    detail: 'clientId belongs to another conversation',
  })
  return false
}

async function manifest(host: InboundHost, conn: Conn, message: ManifestMessage): Promise<boolean> {
  const { store } = host
  if (!(await ownsClient(host, conn, message.clientId, 'manifest'))) return false
  const first = (await store.getManifest(message.clientId)) === undefined
  conn.clientIds.add(message.clientId)
  // Revisions only move forward per page load: a late, older manifest never replaces a newer one.
  const stored = await store.putManifest({
    clientId: message.clientId,
    userId: conn.userId,
    conversationId: conn.conversationId,
    rev: message.rev,
    tools: message.tools,
    updatedAt: host.clock.now(),
  })
  if (stored) host.pageChanged(conn.conversationId)
  if (!stored) {
    const newer = (await store.getManifest(message.clientId))?.rev
    return reject(host, conn, {
      reason: 'old_rev',
      type: 'manifest',
      clientId: message.clientId,
      detail: `rev ${message.rev} is older than the stored rev ${newer}`,
    })
  }
  if (first) await rebind(host, conn, message)
  // The user's pending decisions are asked again on the page load the conversation is bound to.
  host.reask(conn.conversationId, message.clientId, { rev: message.rev, tools: message.tools })
  return true
}

/** The first manifest of a page load: the conversation is bound to it, and the page it leaves may be gone. */
async function rebind(host: InboundHost, conn: Conn, message: ManifestMessage): Promise<void> {
  const { store } = host
  // A new page load (full reload or new tab) of this user and conversation: future calls go to it (docs/protocol/v1.md, Navigation and full reloads).
  const previous = await store.getActiveClient(conn.conversationId)
  if (previous === message.clientId) return
  await store.setActiveClient(conn.conversationId, message.clientId)
  host.pageChanged(conn.conversationId)
  // Only a reload or another tab moves the conversation; the first page load binds it without a log line.
  if (previous !== undefined)
    host.log(`[relay] conversation=${conn.conversationId} rebound to a new page load`)
  host.emit('rebound', { conversationId: conn.conversationId, from: previous, to: message.clientId })
  if (previous && !(await host.isOpen(conn.conversationId, previous)))
    await host.expire(conn.conversationId, previous)
}

async function result(host: InboundHost, conn: Conn, message: ResultMessage): Promise<boolean> {
  const { store } = host
  // The usual case in one statement: pending, bound to this page load, in time. Otherwise the call is read
  // below to tell which check refuses it (and a past deadline times it out).
  if (store.answerCall) {
    const by = { userId: conn.userId, conversationId: conn.conversationId, clientId: message.clientId }
    const answered = await store.answerCall(message.id, by, host.clock.now())
    if (answered) return accept(host, conn, message, answered)
  }
  const base = { type: 'result', id: message.id, clientId: message.clientId }
  const binding = await store.getCall(message.id)
  if (!binding) return reject(host, conn, { ...base, reason: 'unknown_id' })
  if (
    binding.userId !== conn.userId ||
    binding.conversationId !== conn.conversationId ||
    binding.clientId !== message.clientId
  ) {
    return reject(host, conn, { ...base, reason: 'mismatch' })
  }
  if (binding.state === 'answered') return reject(host, conn, { ...base, reason: 'duplicate' })
  if (binding.state === 'timed_out') return reject(host, conn, { ...base, reason: 'late' })
  if (host.clock.now() > binding.deadlineAt) {
    await host.timeOut(binding) // the agent sees the timeout and the page gets its cancel first
    return reject(host, conn, { ...base, reason: 'late' })
  }
  if (!(await store.settleCall(binding.id, 'answered')))
    return reject(host, conn, { ...base, reason: 'duplicate' })
  return accept(host, conn, message, binding)
}

/** A result whose call was settled `answered` by it: the waiter (here or on another instance) gets it. */
async function accept(
  host: InboundHost,
  conn: Conn,
  message: ResultMessage,
  binding: CallBinding,
): Promise<boolean> {
  const { store } = host
  conn.clientIds.add(message.clientId)
  const outcome = message.result
  // Read before the waiter is taken: a waiter here knows them, else the call's hand-over brought them.
  const secrets = host.callSecrets(binding.id)
  const waiter = host.takeWaiter(binding.id)
  // Only a call can create a confirmation; a describe answered needs_confirmation binds nothing.
  if (outcome.status === 'needs_confirmation' && binding.kind === 'call') {
    const bound = await store.insertConfirm({
      confirmId: outcome.confirmId,
      userId: binding.userId,
      conversationId: binding.conversationId,
      clientId: binding.clientId,
      callId: binding.id,
      toolCallId: binding.toolCallId,
      tool: binding.tool,
      // The page's summary is free text: cut to the provider's limit, masked (and the call's secrets cut out) before it is stored.
      summary: maskText(scrub(boundText(outcome.summary), secrets)),
      createdAt: host.clock.now(),
      state: 'pending',
      ...(host.confirmTtlMs === undefined ? {} : { expiresAt: host.clock.now() + host.confirmTtlMs }),
    })
    if (!bound)
      host.log(`[relay] confirmId reused by conversation=${binding.conversationId}; first binding kept`)
    else if (secrets.length > 0) host.keepConfirmSecrets(outcome.confirmId, secrets)
  }
  if (!waiter) {
    host.forward(binding, outcome)
    return true
  }
  host.clock.clearTimeout(waiter.timer)
  waiter.resolve({ callId: binding.id, clientId: binding.clientId, result: outcome, timedOut: false })
  return true
}

async function confirmed(host: InboundHost, conn: Conn, message: ConfirmedMessage): Promise<boolean> {
  const { store } = host
  const base = { type: 'confirmed', id: message.confirmId, clientId: message.clientId }
  const binding = await store.getConfirm(message.confirmId)
  if (!binding) return reject(host, conn, { ...base, reason: 'unknown_confirm' })
  if (
    binding.userId !== conn.userId ||
    binding.conversationId !== conn.conversationId ||
    binding.clientId !== message.clientId
  ) {
    return reject(host, conn, { ...base, reason: 'mismatch' })
  }
  if (binding.state === 'used') return reject(host, conn, { ...base, reason: 'duplicate_confirm' })
  if (binding.state === 'expired') return reject(host, conn, { ...base, reason: 'expired_confirm' })
  const now = host.clock.now()
  if (binding.expiresAt !== undefined && binding.expiresAt <= now) {
    // Past its lifetime (its instance may have been down meanwhile): refused, and the agent is told it expired
    // (once: its decision ends too, so no page load asks it again).
    if ((await store.settleConfirm(binding.confirmId, 'expired')) && (await host.decide(binding, 'dropped')))
      host.emit('expired', {
        conversationId: binding.conversationId,
        bindings: [{ ...binding, state: 'expired' }],
        reason: 'lifetime',
      })
    return reject(host, conn, { ...base, reason: 'expired_confirm', detail: 'past its lifetime' })
  }
  if (!(await store.settleConfirm(binding.confirmId, 'used', now))) {
    // Settled meanwhile: a second answer for it (duplicate), or withdrawn by an answer on another page load.
    const settled = await store.getConfirm(binding.confirmId)
    return settled?.state === 'expired'
      ? reject(host, conn, { ...base, reason: 'expired_confirm', detail: 'answered on another page load' })
      : reject(host, conn, { ...base, reason: 'duplicate_confirm' })
  }
  // The same decision asked on several page loads (a reload, another tab): the first answer counts, once.
  if (!(await host.decide(binding)))
    return reject(host, conn, { ...base, reason: 'expired_confirm', detail: 'answered on another page load' })
  conn.clientIds.add(message.clientId)
  host.emit('confirmed', {
    binding: { ...binding, state: 'used' },
    result: message.result,
    secrets: host.takeConfirmSecrets(binding.confirmId),
  })
  return true
}
