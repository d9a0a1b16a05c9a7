import {
  type ConfirmMessage,
  type ExtendedValidationResult,
  validateConfirmMessage,
} from './extension-confirm.ts'

export type { ConfirmMessage, ExtendedValidationResult } from './extension-confirm.ts'

import {
  type AgentToPageMessage,
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

/** A page → agent `manifest` that announces the extensions the page load supports. */
export interface ExtendedManifestMessage extends ManifestMessage {
  /** Extension names (unique); the page accepts those extensions' messages. */
  extensions?: string[]
}

/** Every page → agent message when extensions are on. */
export type ExtendedPageToAgentMessage =
  | ExtendedManifestMessage
  | Exclude<PageToAgentMessage, ManifestMessage>

/** Every agent → page message when extensions are on. */
export type ExtendedAgentToPageMessage = AgentToPageMessage | ConfirmMessage

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

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
      if (direction === 'toPage' && value.type === 'confirm') return validateConfirmMessage(value)
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
