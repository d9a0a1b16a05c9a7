/**
 * `@toolmark/protocol/extensions`: the opt-in extensions of bridge protocol v1 (docs/protocol/v1.md,
 * Extensions). A page offers them with an `extensions` message after its manifest; a server that knows one
 * accepts it with an `extensions` message of its own; only then does the page send that extension's messages.
 * A v1 server drops the offer as an invalid message and never answers, and a v1 page never offers: both
 * keep working unchanged.
 */

import {
  CONTEXT_NAME_SOURCE,
  EXTENSION_NAME_SOURCE,
  MAX_CONTEXT_DESCRIPTION,
  MAX_CONTEXT_ENTRIES,
  MAX_EXTENSIONS,
  MAX_PROGRESS_MESSAGE,
} from './extension-constants.ts'
import { MAX_ID_LENGTH, PROTOCOL_VERSION } from './messages.ts'

export {
  CONTEXT_EXTENSION,
  CONTEXT_INTERVAL_MS,
  CONTEXT_NAME_SOURCE,
  CONTEXT_NOTE,
  EXTENSION_NAME_SOURCE,
  MAX_CONTEXT_DESCRIPTION,
  MAX_CONTEXT_ENTRIES,
  MAX_CONTEXT_PER_SECOND,
  MAX_CONTEXT_TOTAL,
  MAX_EXTENSIONS,
  MAX_PROGRESS_DATA,
  MAX_PROGRESS_MESSAGE,
  MAX_PROGRESS_PER_SECOND,
  PROGRESS_EXTENSION,
  PROGRESS_INTERVAL_MS,
} from './extension-constants.ts'

const NAME = new RegExp(EXTENSION_NAME_SOURCE)
const CONTEXT_NAME = new RegExp(CONTEXT_NAME_SOURCE)

/** Page → agent: the extensions this page load supports (sent after a manifest; a server may ignore it). */
export interface ExtensionsOfferMessage {
  protocol: typeof PROTOCOL_VERSION
  type: 'extensions'
  clientId: string
  offer: string[]
}

/** Agent → page: the extensions of the page's offer this server takes. The page sends only those. */
export interface ExtensionsAcceptMessage {
  protocol: typeof PROTOCOL_VERSION
  type: 'extensions'
  clientId: string
  accept: string[]
}

/** Page → agent (`progress` extension): how far the call `id` has come. Never extends the call's deadline. */
export interface ProgressMessage {
  protocol: typeof PROTOCOL_VERSION
  type: 'progress'
  clientId: string
  /** The call's id. */
  id: string
  /** From 0 to 1. */
  fraction?: number
  /** At most {@link MAX_PROGRESS_MESSAGE} characters. */
  message?: string
  /** A preliminary result, replaced by the call's result. */
  data?: unknown
}

/** One entry of a `context` message: a readable context entry of the page, its value masked. */
export interface ContextMessageEntry {
  /** The entry's full name (scopes joined with `.`), like a tool name. */
  name: string
  /** What the entry is, for the model (at most {@link MAX_CONTEXT_DESCRIPTION} characters). */
  description: string
  /** The masked value: any JSON (page data, never instructions). */
  value: unknown
}

/**
 * Page → agent (`context` extension): the page's whole readable context now, replacing the one sent before.
 * Sent after the server accepted the extension, then only when the context changed. No entries: none now.
 */
export interface ContextMessage {
  protocol: typeof PROTOCOL_VERSION
  type: 'context'
  clientId: string
  /** The page's context revision: a server keeps the context of the highest one it got. */
  rev: number
  /** At most {@link MAX_CONTEXT_ENTRIES}, sorted by name. */
  entries: ContextMessageEntry[]
}

/** Every page → agent message of an extension. */
export type ExtensionToAgentMessage = ExtensionsOfferMessage | ProgressMessage | ContextMessage

/** The outcome of {@link validateExtensionMessage}: the message itself or why it is not a valid one. */
export type ExtensionValidationResult<M> = { ok: true; message: M } | { ok: false; reason: string }

type Obj = Record<string, unknown>

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A string of `min` to `max` code points (what JSON Schema's `minLength`/`maxLength` count). */
function fits(value: unknown, min: number, max: number): boolean {
  if (typeof value !== 'string' || value.length > 2 * max) return false
  let points = 0
  for (const _ of value) points++
  return points >= min && points <= max
}

function envelopeProblem(v: Obj, allowed: readonly string[]): string | undefined {
  for (const key in v) if (!allowed.includes(key)) return `${String(v.type)}: unknown property ${key}`
  if (!fits(v.clientId, 1, MAX_ID_LENGTH)) return `${String(v.type)}: clientId must be a non-empty string`
  return undefined
}

function namesProblem(list: unknown, field: string): string | undefined {
  if (!Array.isArray(list) || list.length > MAX_EXTENSIONS)
    return `extensions: ${field} must be an array of at most ${MAX_EXTENSIONS} names`
  for (const name of list)
    if (typeof name !== 'string' || !NAME.test(name)) return `extensions: each name must match ${NAME.source}`
  if (new Set(list).size !== list.length) return `extensions: ${field} must be unique`
  return undefined
}

function progressProblem(v: Obj): string | undefined {
  const problem = envelopeProblem(v, ['protocol', 'type', 'clientId', 'id', 'fraction', 'message', 'data'])
  if (problem) return problem
  if (!fits(v.id, 1, MAX_ID_LENGTH)) return 'progress: id must be a non-empty string'
  if ('fraction' in v && (typeof v.fraction !== 'number' || !(v.fraction >= 0 && v.fraction <= 1)))
    return 'progress: fraction must be a number from 0 to 1'
  if ('message' in v && !fits(v.message, 0, MAX_PROGRESS_MESSAGE))
    return `progress: message must be a string of at most ${MAX_PROGRESS_MESSAGE} characters`
  if (!('fraction' in v || 'message' in v || 'data' in v)) return 'progress: needs fraction, message or data'
  return undefined
}

function contextProblem(v: Obj): string | undefined {
  const problem = envelopeProblem(v, ['protocol', 'type', 'clientId', 'rev', 'entries'])
  if (problem) return problem
  if (typeof v.rev !== 'number' || !Number.isSafeInteger(v.rev) || v.rev < 0)
    return 'context: rev must be an integer >= 0'
  if (!Array.isArray(v.entries) || v.entries.length > MAX_CONTEXT_ENTRIES)
    return `context: entries must be an array of at most ${MAX_CONTEXT_ENTRIES}`
  for (const entry of v.entries) {
    if (!isObject(entry)) return 'context: each entry must be an object'
    for (const key in entry)
      if (key !== 'name' && key !== 'description' && key !== 'value')
        return `context: entry: unknown property ${key}`
    if (typeof entry.name !== 'string' || !CONTEXT_NAME.test(entry.name))
      return `context: entry name must match ${CONTEXT_NAME_SOURCE}`
    if (!fits(entry.description, 0, MAX_CONTEXT_DESCRIPTION))
      return `context: entry description must be a string of at most ${MAX_CONTEXT_DESCRIPTION} characters`
    if (!('value' in entry)) return 'context: entry value is missing'
  }
  return undefined
}

/**
 * Validates one message of an extension, strictly: page → agent `extensions` (an offer), `progress` and `context`, or
 * agent → page `extensions` (an acceptance). Anything else, plain v1 messages included, is not an extension
 * message (use `validateMessage` for those). The value should be a bounded copy (`boundedCopy`). Never throws.
 */
export function validateExtensionMessage(
  value: unknown,
  direction: 'toAgent',
): ExtensionValidationResult<ExtensionToAgentMessage>
export function validateExtensionMessage(
  value: unknown,
  direction: 'toPage',
): ExtensionValidationResult<ExtensionsAcceptMessage>
export function validateExtensionMessage(
  value: unknown,
  direction: 'toAgent' | 'toPage',
): ExtensionValidationResult<ExtensionToAgentMessage | ExtensionsAcceptMessage> {
  if (!isObject(value)) return { ok: false, reason: 'not an object' }
  if (value.protocol !== PROTOCOL_VERSION) return { ok: false, reason: 'unsupported protocol' }
  let problem: string | undefined
  if (value.type === 'extensions') {
    const field = direction === 'toAgent' ? 'offer' : 'accept'
    problem =
      envelopeProblem(value, ['protocol', 'type', 'clientId', field]) ?? namesProblem(value[field], field)
  } else if (value.type === 'progress' && direction === 'toAgent') problem = progressProblem(value)
  else if (value.type === 'context' && direction === 'toAgent') problem = contextProblem(value)
  else return { ok: false, reason: 'not an extension message' }
  return problem === undefined ? { ok: true, message: value as never } : { ok: false, reason: problem }
}

export { extensionSchemas } from './extension-schemas.ts'
