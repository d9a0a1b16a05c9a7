import { deepFreeze } from './freeze.ts'
import type { JsonSchema } from './manifest.ts'
import {
  type AgentToPageMessage,
  MAX_ID_LENGTH,
  type ManifestMessage,
  type MessageDirection,
  type PageToAgentMessage,
  PROTOCOL_VERSION,
} from './messages.ts'
import { validateMessage } from './validate.ts'

/*
 * Opt-in extensions of bridge protocol v1. A page that supports one lists its name in the `extensions`
 * array of its `manifest` messages; a server sends an extension's messages only to a page load that listed
 * it. A v1 page never lists any, and a v1 server never sends any: both keep working unchanged. Plain v1
 * validation (`validateMessage`) rejects everything here, so only parties that opted in use
 * {@link validateExtendedMessage}.
 */

/**
 * The `confirm` extension: the server may send a `confirm` message that answers one of the page's deferred
 * confirmations for the signed-in user (approve, with or without edited input, or reject). The page applies
 * it with `tm.confirmPending` and answers its `id` with one `result`; the normal `confirmed` follows when the
 * confirmation settles.
 */
export const CONFIRM_EXTENSION = 'confirm' as const

/** Most extension names one manifest may list. */
export const MAX_EXTENSIONS = 16

/** Pattern of an extension name. */
export const EXTENSION_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,31}$'
const EXTENSION_NAME = /^[a-z][a-z0-9_-]{0,31}$/

/** Longest `reason` of a rejecting `confirm`, in UTF-16 code units. */
export const MAX_CONFIRM_REASON = 1000

/** A page → agent `manifest` that announces the extensions the page load supports. */
export interface ExtendedManifestMessage extends ManifestMessage {
  /** Extension names (unique); the page accepts those extensions' messages. */
  extensions?: string[]
}

/**
 * Agent → page (extension `confirm`): answer the deferred confirmation `confirmId` for the user. Answered
 * with exactly one `result` for `id`: the return value of `tm.confirmPending` (an edit that fails validation
 * answers `invalid` and leaves the confirmation open).
 */
export interface ConfirmMessage {
  protocol: typeof PROTOCOL_VERSION
  type: 'confirm'
  clientId: string
  id: string
  confirmId: string
  /** True: approve (the tool runs as caller `human`); false: reject (`cancelled operator`). */
  approved: boolean
  /** Only with `approved: true`: the edited input, validated again by the page. */
  input?: { [key: string]: unknown }
  /** Only with `approved: false`: why, for the page's own records. */
  reason?: string
}

/** Every page → agent message when extensions are on. */
export type ExtendedPageToAgentMessage =
  | ExtendedManifestMessage
  | Exclude<PageToAgentMessage, ManifestMessage>

/** The outcome of {@link validateExtendedMessage}: the message itself, or why it was rejected. */
export type ExtendedValidationResult<M> = { ok: true; message: M } | { ok: false; reason: string }

/** Every agent → page message when extensions are on. */
export type ExtendedAgentToPageMessage = AgentToPageMessage | ConfirmMessage

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const isId = (v: unknown): boolean => typeof v === 'string' && v.length > 0 && [...v].length <= MAX_ID_LENGTH

const CONFIRM_KEYS = new Set([
  'protocol',
  'type',
  'clientId',
  'id',
  'confirmId',
  'approved',
  'input',
  'reason',
])

function confirmProblem(m: Record<string, unknown>): string | undefined {
  for (const key in m) if (!CONFIRM_KEYS.has(key)) return 'confirm: unknown property'
  if (!isId(m.clientId)) return 'confirm: clientId must be a non-empty string of at most 256 characters'
  if (!isId(m.id)) return 'confirm: id must be a non-empty string of at most 256 characters'
  if (!isId(m.confirmId)) return 'confirm: confirmId must be a non-empty string of at most 256 characters'
  if (typeof m.approved !== 'boolean') return 'confirm: approved must be a boolean'
  if (m.input !== undefined && (!m.approved || !isObject(m.input)))
    return 'confirm: input must be an object, and only with approved: true'
  if (
    m.reason !== undefined &&
    (m.approved || typeof m.reason !== 'string' || m.reason.length > MAX_CONFIRM_REASON)
  )
    return `confirm: reason must be a string of at most ${MAX_CONFIRM_REASON} characters, and only with approved: false`
  return undefined
}

function extensionsProblem(list: unknown): string | undefined {
  if (!Array.isArray(list) || list.length > MAX_EXTENSIONS)
    return `manifest: extensions must be an array of at most ${MAX_EXTENSIONS} names`
  for (const name of list)
    if (typeof name !== 'string' || !EXTENSION_NAME.test(name))
      return `manifest: each extension must match ${EXTENSION_NAME_PATTERN}`
  if (new Set(list).size !== list.length) return 'manifest: extensions must be unique'
  return undefined
}

/**
 * Validates a message as {@link validateMessage} does, plus what the extensions add: an `extensions` list on
 * `manifest` (page → agent) and the `confirm` message (agent → page). Never throws.
 */
export function validateExtendedMessage(
  value: unknown,
  direction: 'toPage',
): ExtendedValidationResult<ExtendedAgentToPageMessage>
export function validateExtendedMessage(
  value: unknown,
  direction: 'toAgent',
): ExtendedValidationResult<ExtendedPageToAgentMessage>
export function validateExtendedMessage(
  value: unknown,
  direction: MessageDirection,
): ExtendedValidationResult<ExtendedAgentToPageMessage | ExtendedPageToAgentMessage>
export function validateExtendedMessage(
  value: unknown,
  direction: MessageDirection,
): ExtendedValidationResult<ExtendedAgentToPageMessage | ExtendedPageToAgentMessage> {
  try {
    if (isObject(value) && value.protocol === PROTOCOL_VERSION) {
      if (direction === 'toPage' && value.type === 'confirm') {
        const reason = confirmProblem(value)
        return reason === undefined
          ? { ok: true, message: value as unknown as ConfirmMessage }
          : { ok: false, reason }
      }
      if (direction === 'toAgent' && value.type === 'manifest' && 'extensions' in value) {
        const reason = extensionsProblem(value.extensions)
        if (reason !== undefined) return { ok: false, reason }
        const { extensions: _, ...rest } = value
        const base = validateMessage(rest, 'toAgent')
        return base.ok ? { ok: true, message: value as unknown as ExtendedManifestMessage } : base
      }
    }
    return validateMessage(value, direction)
  } catch {
    return { ok: false, reason: 'message could not be read' }
  }
}

/** The `extensions` a manifest message lists (`[]` for a plain v1 manifest). */
export function extensionsOf(message: ManifestMessage): readonly string[] {
  const list = (message as ExtendedManifestMessage).extensions
  return Array.isArray(list) ? list : []
}

const id = { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH }

/**
 * JSON Schemas (draft 2020-12) of what the extensions add to protocol v1: the `extensions` property of a
 * `manifest`, and the `confirm` message. Deep-frozen.
 */
export const extensionSchemas: { readonly extensions: JsonSchema; readonly confirmMessage: JsonSchema } =
  /* @__PURE__ */ deepFreeze({
    extensions: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:toolmark:protocol:v1:ext:extensions',
      type: 'array',
      items: { type: 'string', pattern: EXTENSION_NAME_PATTERN },
      maxItems: MAX_EXTENSIONS,
      uniqueItems: true,
    },
    confirmMessage: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:toolmark:protocol:v1:ext:confirm',
      type: 'object',
      properties: {
        protocol: { const: 1 },
        type: { const: 'confirm' },
        clientId: id,
        id,
        confirmId: id,
        approved: { type: 'boolean' },
        input: { type: 'object' },
        reason: { type: 'string', maxLength: MAX_CONFIRM_REASON },
      },
      required: ['protocol', 'type', 'clientId', 'id', 'confirmId', 'approved'],
      additionalProperties: false,
      if: { properties: { approved: { const: true } } },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
      then: { properties: { reason: false } },
      else: { properties: { input: false } },
    },
  } as const as { extensions: JsonSchema; confirmMessage: JsonSchema })
