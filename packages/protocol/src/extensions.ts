/**
 * `@toolmark/protocol/extensions`: the opt-in extensions of bridge protocol v1 (docs/protocol/v1.md,
 * Extensions). A page offers them with an `extensions` message after its manifest; a server that knows one
 * accepts it with an `extensions` message of its own; only then does the page send that extension's messages.
 * A v1 server drops the offer as an invalid message and never answers, and a v1 page never offers: both
 * keep working unchanged.
 */

import { EXTENSION_NAME_SOURCE, MAX_EXTENSIONS, MAX_PROGRESS_MESSAGE } from './extension-constants.ts'
import { MAX_ID_LENGTH, PROTOCOL_VERSION } from './messages.ts'

export {
  EXTENSION_NAME_SOURCE,
  MAX_EXTENSIONS,
  MAX_PROGRESS_DATA,
  MAX_PROGRESS_MESSAGE,
  MAX_PROGRESS_PER_SECOND,
  PROGRESS_EXTENSION,
  PROGRESS_INTERVAL_MS,
} from './extension-constants.ts'

const NAME = new RegExp(EXTENSION_NAME_SOURCE)

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

/** Every page → agent message of an extension. */
export type ExtensionToAgentMessage = ExtensionsOfferMessage | ProgressMessage

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

/**
 * Validates one message of an extension, strictly: page → agent `extensions` (an offer) and `progress`, or
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
  else return { ok: false, reason: 'not an extension message' }
  return problem === undefined ? { ok: true, message: value as never } : { ok: false, reason: problem }
}

export { extensionSchemas } from './extension-schemas.ts'
