import { ERROR_MESSAGES } from './codes.ts'
import {
  type AgentToPageMessage,
  MAX_ID_LENGTH,
  type MessageDirection,
  type PageToAgentMessage,
  PROTOCOL_VERSION,
  type ProtocolMessage,
} from './messages.ts'

/** The outcome of `validateMessage`: the message itself (not a copy) or why it was rejected. */
export type ValidationResult<M extends ProtocolMessage = ProtocolMessage> =
  | { ok: true; message: M }
  | { ok: false; reason: string }

/**
 * The `reason` for a message whose `protocol` is present but not `1`. The bridge answers such a
 * message with `error "unsupported protocol"` when it carries a string `id` and this page's
 * `clientId` (rule 4); every other rejection is dropped unanswered.
 */
export const UNSUPPORTED_PROTOCOL = ERROR_MESSAGES.unsupportedProtocol

type Fail = { ok: false; reason: string }
type Obj = Record<string, unknown>

const MAX_REV = Number.MAX_SAFE_INTEGER

// The strict objects of the protocol, one bit each: every message, every tool result status, an
// `invalid` result's issues and a `needs_confirmation` result's changes. Manifest entries and hints
// are not strict (they accept properties a later version adds).
const CALL = 1
const DESCRIBE = 2
const CANCEL = 4
const MANIFEST = 8
const CHANGED = 0x10
const RESULT = 0x20
const CONFIRMED = 0x40
const OK = 0x80
const CANCELLED = 0x100
const ERROR = 0x200
const INVALID = 0x400
const ISSUE = 0x800
const REFUSED = 0x1000
const NEEDS_CONFIRMATION = 0x2000
const CHANGE = 0x4000
const MESSAGE = CALL | DESCRIBE | CANCEL | MANIFEST | CHANGED | RESULT | CONFIRMED

/**
 * The allowed-keys table: which strict objects may carry the property `key` (0 for none). Each
 * object's check is `for (const key in value) if (!(allowedIn(key) & KIND)) return reason`: no
 * allocation, and a switch compares `key` with constants (most frequent names first).
 */
function allowedIn(key: string): number {
  switch (key) {
    case 'protocol':
    case 'type':
    case 'clientId':
      return MESSAGE
    case 'id':
      return CALL | DESCRIBE | CANCEL | RESULT
    case 'tool':
      return CALL | DESCRIBE
    case 'input':
      return CALL
    case 'rev':
      return CALL | MANIFEST | CHANGED | REFUSED
    case 'status':
      return OK | CANCELLED | ERROR | INVALID | REFUSED | NEEDS_CONFIRMATION
    case 'result':
      return RESULT | CONFIRMED
    case 'message':
      return ERROR | ISSUE | REFUSED
    case 'path':
      return ISSUE | CHANGE
    case 'confirmId':
      return CONFIRMED | NEEDS_CONFIRMATION
    case 'tools':
      return MANIFEST
    case 'data':
      return OK
    case 'by':
      return CANCELLED
    case 'issues':
      return INVALID
    case 'code':
      return REFUSED
    case 'summary':
    case 'changes':
      return NEEDS_CONFIRMATION
    case 'before':
    case 'after':
      return CHANGE
    default:
      return 0
  }
}

/**
 * Validate one inbound or outbound protocol message without dependencies.
 *
 * `'toPage'` accepts agent → page messages (`call`, `describe`, `cancel`); `'toAgent'` accepts
 * page → agent messages (`manifest`, `changed`, `result`, `confirmed`). Top-level messages and
 * tool results are strict (unknown properties rejected); manifest entries and hints accept unknown
 * properties; `call.input` must be a JSON object whose content is not checked; `ok.data` is not
 * checked. `protocol` is checked first: a message whose `protocol` is present but not `1` is
 * rejected with reason `'unsupported protocol'` whatever its other fields are. Never throws (a
 * throwing getter or proxy yields `{ ok: false }`); run `boundedCopy` first on hostile values.
 */
export function validateMessage(value: unknown, direction: 'toPage'): ValidationResult<AgentToPageMessage>
export function validateMessage(value: unknown, direction: 'toAgent'): ValidationResult<PageToAgentMessage>
export function validateMessage(value: unknown, direction: MessageDirection): ValidationResult
export function validateMessage(value: unknown, direction: MessageDirection): ValidationResult {
  try {
    const reason = messageProblem(value, direction)
    return reason === undefined ? { ok: true, message: value as ProtocolMessage } : { ok: false, reason }
  } catch {
    return FAIL_UNREADABLE
  }
}

const FAIL_UNREADABLE: Fail = Object.freeze({ ok: false, reason: 'message could not be read' }) as Fail

/** True when `value` is a plain JSON object (not null, not an array). */
function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A non-empty string of at most MAX_ID_LENGTH code points (JSON Schema counts code points). */
function isId(value: unknown): boolean {
  if (typeof value !== 'string') return false
  const n = value.length
  if (n === 0) return false
  if (n <= MAX_ID_LENGTH) return true
  if (n > 2 * MAX_ID_LENGTH) return false
  let points = 0
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++
    points++
  }
  return points <= MAX_ID_LENGTH
}

/** `^[A-Za-z0-9_.-]{1,max}$`, or without `.` when `dot` is false, checked by char code. */
function isNameLike(value: unknown, max: number, dot: boolean): boolean {
  if (typeof value !== 'string') return false
  const n = value.length
  if (n === 0 || n > max) return false
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i)
    if (
      (c >= 0x61 && c <= 0x7a) || // a-z
      (c >= 0x41 && c <= 0x5a) || // A-Z
      (c >= 0x30 && c <= 0x39) || // 0-9
      c === 0x5f || // _
      c === 0x2d || // -
      (dot && c === 0x2e) // .
    ) {
      continue
    }
    return false
  }
  return true
}

/** A full tool name: `^[A-Za-z0-9_.-]{1,128}$`. */
function isToolName(value: unknown): boolean {
  return isNameLike(value, 128, true)
}

/** An integer revision in [0, Number.MAX_SAFE_INTEGER]. */
function isRev(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_REV
}

function messageProblem(value: unknown, direction: MessageDirection): string | undefined {
  if (!isObject(value)) return 'message must be an object'
  const protocol = value.protocol
  if (protocol !== PROTOCOL_VERSION) return protocol === undefined ? 'missing protocol' : UNSUPPORTED_PROTOCOL
  const type = value.type
  if (direction === 'toPage') {
    switch (type) {
      case 'call':
        return callProblem(value)
      case 'describe':
        return describeProblem(value)
      case 'cancel':
        return cancelProblem(value)
      case 'manifest':
      case 'changed':
      case 'result':
      case 'confirmed':
        return 'wrong direction: a page→agent message sent to the page'
      default:
        return typeof type === 'string' ? 'unknown message type' : 'missing or non-string type'
    }
  }
  if (direction === 'toAgent') {
    switch (type) {
      case 'manifest':
        return manifestProblem(value)
      case 'changed':
        return changedProblem(value)
      case 'result':
        return resultMessageProblem(value)
      case 'confirmed':
        return confirmedProblem(value)
      case 'call':
      case 'describe':
      case 'cancel':
        return 'wrong direction: an agent→page message sent to the agent'
      default:
        return typeof type === 'string' ? 'unknown message type' : 'missing or non-string type'
    }
  }
  return 'unknown direction'
}

// ---- agent → page ----

function callProblem(m: Obj): string | undefined {
  for (const key in m) if (!(allowedIn(key) & CALL)) return 'call: unknown property'
  if (!isId(m.clientId)) return 'call: clientId must be a non-empty string of at most 256 characters'
  if (!isId(m.id)) return 'call: id must be a non-empty string of at most 256 characters'
  if (!isToolName(m.tool)) return 'call: tool must match ^[A-Za-z0-9_.-]{1,128}$'
  if (!isObject(m.input)) return 'call: input must be an object'
  if (m.rev !== undefined && !isRev(m.rev)) return 'call: rev must be an integer >= 0'
  return undefined
}

function describeProblem(m: Obj): string | undefined {
  for (const key in m) if (!(allowedIn(key) & DESCRIBE)) return 'describe: unknown property'
  if (!isId(m.clientId)) return 'describe: clientId must be a non-empty string of at most 256 characters'
  if (!isId(m.id)) return 'describe: id must be a non-empty string of at most 256 characters'
  if (!isToolName(m.tool)) return 'describe: tool must match ^[A-Za-z0-9_.-]{1,128}$'
  return undefined
}

function cancelProblem(m: Obj): string | undefined {
  for (const key in m) if (!(allowedIn(key) & CANCEL)) return 'cancel: unknown property'
  if (!isId(m.clientId)) return 'cancel: clientId must be a non-empty string of at most 256 characters'
  if (!isId(m.id)) return 'cancel: id must be a non-empty string of at most 256 characters'
  return undefined
}

// ---- page → agent ----

function manifestProblem(m: Obj): string | undefined {
  for (const key in m) if (!(allowedIn(key) & MANIFEST)) return 'manifest: unknown property'
  if (!isId(m.clientId)) return 'manifest: clientId must be a non-empty string of at most 256 characters'
  if (!isRev(m.rev)) return 'manifest: rev must be an integer >= 0'
  const tools = m.tools
  if (!Array.isArray(tools)) return 'manifest: tools must be an array'
  for (let i = 0; i < tools.length; i++) {
    const problem = entryProblem(tools[i])
    if (problem !== undefined) return problem
  }
  return undefined
}

/** A ToolManifestSummary: known fields checked, unknown fields accepted. */
function entryProblem(entry: unknown): string | undefined {
  if (!isObject(entry)) return 'manifest: each tool must be an object'
  if (!isToolName(entry.name)) return 'manifest: tool name must match ^[A-Za-z0-9_.-]{1,128}$'
  if (!isNameLike(entry.llmName, 64, false)) return 'manifest: llmName must match ^[a-zA-Z0-9_-]{1,64}$'
  if (entry.title !== undefined && typeof entry.title !== 'string') return 'manifest: title must be a string'
  if (typeof entry.description !== 'string') return 'manifest: description must be a string'
  if (entry.mode !== undefined && typeof entry.mode !== 'string') return 'manifest: mode must be a string'
  const hints = entry.hints
  if (!isObject(hints)) return 'manifest: hints must be an object'
  if (
    !isOptionalBoolean(hints.readOnly) ||
    !isOptionalBoolean(hints.consequential) ||
    !isOptionalBoolean(hints.destructive) ||
    !isOptionalBoolean(hints.untrustedContent)
  ) {
    return 'manifest: known hints must be booleans'
  }
  return undefined
}

function isOptionalBoolean(value: unknown): boolean {
  return value === undefined || typeof value === 'boolean'
}

function changedProblem(m: Obj): string | undefined {
  for (const key in m) if (!(allowedIn(key) & CHANGED)) return 'changed: unknown property'
  if (!isId(m.clientId)) return 'changed: clientId must be a non-empty string of at most 256 characters'
  if (!isRev(m.rev)) return 'changed: rev must be an integer >= 0'
  return undefined
}

function resultMessageProblem(m: Obj): string | undefined {
  for (const key in m) if (!(allowedIn(key) & RESULT)) return 'result: unknown property'
  if (!isId(m.clientId)) return 'result: clientId must be a non-empty string of at most 256 characters'
  if (!isId(m.id)) return 'result: id must be a non-empty string of at most 256 characters'
  return toolResultProblem(m.result)
}

function confirmedProblem(m: Obj): string | undefined {
  for (const key in m) if (!(allowedIn(key) & CONFIRMED)) return 'confirmed: unknown property'
  if (!isId(m.clientId)) return 'confirmed: clientId must be a non-empty string of at most 256 characters'
  if (!isId(m.confirmId)) return 'confirmed: confirmId must be a non-empty string of at most 256 characters'
  return toolResultProblem(m.result)
}

// ---- tool results (strict per status) ----

function toolResultProblem(r: unknown): string | undefined {
  if (!isObject(r)) return 'result must be an object'
  switch (r.status) {
    case 'ok':
      for (const key in r) if (!(allowedIn(key) & OK)) return 'ok result: unknown property'
      return undefined
    case 'invalid':
      return invalidProblem(r)
    case 'refused':
      return refusedProblem(r)
    case 'needs_confirmation':
      return needsConfirmationProblem(r)
    case 'cancelled':
      for (const key in r) if (!(allowedIn(key) & CANCELLED)) return 'cancelled result: unknown property'
      return r.by === 'operator' || r.by === 'signal' || r.by === 'policy'
        ? undefined
        : 'cancelled result: by must be operator, signal or policy'
    case 'error':
      for (const key in r) if (!(allowedIn(key) & ERROR)) return 'error result: unknown property'
      return typeof r.message === 'string' ? undefined : 'error result: message must be a string'
    default:
      return 'result: unknown status'
  }
}

function invalidProblem(r: Obj): string | undefined {
  for (const key in r) if (!(allowedIn(key) & INVALID)) return 'invalid result: unknown property'
  const issues = r.issues
  if (!Array.isArray(issues)) return 'invalid result: issues must be an array'
  for (let i = 0; i < issues.length; i++) {
    const issue: unknown = issues[i]
    if (!isObject(issue)) return 'invalid result: each issue must be an object'
    for (const key in issue) if (!(allowedIn(key) & ISSUE)) return 'invalid result: unknown issue property'
    if (typeof issue.path !== 'string' || typeof issue.message !== 'string') {
      return 'invalid result: issue path and message must be strings'
    }
  }
  return undefined
}

function refusedProblem(r: Obj): string | undefined {
  for (const key in r) if (!(allowedIn(key) & REFUSED)) return 'refused result: unknown property'
  let revAllowed = false
  switch (r.code) {
    case 'unknown_tool':
    case 'stale':
      revAllowed = true
      break
    case 'not_allowed':
    case 'busy':
    case 'undo_unavailable':
    case 'confirmation_expired':
      break
    default:
      return 'refused result: unknown code'
  }
  if (typeof r.message !== 'string') return 'refused result: message must be a string'
  if (r.rev !== undefined) {
    if (!revAllowed) return 'refused result: rev only accompanies unknown_tool and stale'
    if (!isRev(r.rev)) return 'refused result: rev must be an integer >= 0'
  }
  return undefined
}

function needsConfirmationProblem(r: Obj): string | undefined {
  for (const key in r) {
    if (!(allowedIn(key) & NEEDS_CONFIRMATION)) return 'needs_confirmation result: unknown property'
  }
  if (!isId(r.confirmId)) {
    return 'needs_confirmation result: confirmId must be a non-empty string of at most 256 characters'
  }
  if (typeof r.summary !== 'string') return 'needs_confirmation result: summary must be a string'
  const changes = r.changes
  if (!Array.isArray(changes)) return 'needs_confirmation result: changes must be an array'
  for (let i = 0; i < changes.length; i++) {
    const change: unknown = changes[i]
    if (!isObject(change)) return 'needs_confirmation result: each change must be an object'
    for (const key in change) {
      if (!(allowedIn(key) & CHANGE)) return 'needs_confirmation result: unknown change property'
    }
    if (typeof change.path !== 'string') return 'needs_confirmation result: change path must be a string'
  }
  return undefined
}
