import { REFUSED_CODES, REFUSED_MESSAGES } from './codes.ts'
import { DEFAULT_MAX_MESSAGE_BYTES, MAX_DEPTH, MAX_ID_LENGTH, PROTOCOL_VERSION } from './messages.ts'
import type { ToolResult } from './results.ts'

/*
 * What a server puts on the wire or checks there, beyond the message types: limits, names, the
 * results a server makes up itself, why it rejects a page message, and the validator's tables. Every
 * server reads these values (the PHP package through its generated `Wire.php`), so the two servers
 * cannot drift apart.
 */

/** Limits a server applies to every page message before it handles it. */
export const WIRE_LIMITS = {
  /** Largest page message, in UTF-8 bytes of its JSON text; larger ones are rejected `invalid`. */
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  /** Deepest nesting of objects and arrays (the root is depth 1); deeper ones are rejected `invalid`. */
  maxDepth: MAX_DEPTH,
  /** Longest `clientId`, `id` or `confirmId`, in Unicode code points. */
  maxIdLength: MAX_ID_LENGTH,
  /** Longest tool name. */
  maxToolName: 128,
  /** Longest `llmName`. */
  maxLlmName: 64,
} as const

/**
 * Limits on what a server hands a model provider, in UTF-16 code units: a page controls up to 1048576 bytes per
 * message, and a model's cost grows with the text it reads.
 */
export const PROVIDER_LIMITS = {
  /**
   * Longest text of one message other than the user's (a tool result's JSON, assistant text, a chat line, a
   * confirmation's summary): a longer tool result is replaced by an error result that says so, other texts are cut.
   */
  maxProviderText: 32_768,
  /**
   * Most characters of the page's manifest (names, titles and descriptions, plus 64 per tool) a turn offers: the
   * tools that fit, in the page's order; the others are left out of that turn.
   */
  maxManifestChars: 24_576,
} as const

/** Names the Laravel transport uses: the private channel prefix and the broadcast event names. */
export const WIRE_NAMES = {
  /** Private channel `toolmark.{user}.{conversation}`. */
  channelPrefix: 'toolmark',
  /** The agent → page protocol messages (`.toolmark.message` in Echo's notation). */
  messageEvent: 'toolmark.message',
  /** New chat lines (`.toolmark.chat`). */
  chatEvent: 'toolmark.chat',
  /** Assistant text as it streams, in batches (`.toolmark.delta`): `{ messageId, delta }`, as the server's `text-delta`. */
  deltaEvent: 'toolmark.delta',
  /** A page call the agent made started or changed state (`.toolmark.tool`): `{ part }`, as the server's `tool` event. */
  toolEvent: 'toolmark.tool',
  /** A running page call's progress (`.toolmark.progress`): `{ callId, progress }`, as the server's `tool-progress`. */
  progressEvent: 'toolmark.progress',
} as const

/** Headers the page's HTTP transports send with every POST (Laravel's CSRF header among them). */
export const WIRE_HEADERS = {
  contentType: 'application/json',
  accept: 'application/json',
  requestedWith: 'XMLHttpRequest',
  xsrf: 'X-XSRF-TOKEN',
} as const

/** What the agent sees when a page does not answer before the deadline (server-side only). */
export const TIMEOUT_RESULT = {
  status: 'error',
  message: 'Timed out: the page did not answer in time',
} as const satisfies ToolResult

/** What the agent sees when the conversation has no page to call. */
export const NO_PAGE_RESULT = {
  status: 'error',
  message: 'No page is connected to this conversation',
} as const satisfies ToolResult

/** What the agent sees for a confirmation that expired (its page is gone, or its lifetime passed). */
export const EXPIRED_RESULT = {
  status: 'refused',
  code: REFUSED_CODES.confirmation_expired,
  message: REFUSED_MESSAGES.confirmation_expired,
} as const satisfies ToolResult

/** How long a server accepts the approval of a confirmation after its needs_confirmation (ms). */
export const CONFIRM_TTL_MS = 660_000

/** Why a server rejects a page message (logged, never handed to the agent). */
export const REJECT_REASONS = {
  /** Not JSON, too large or deep, or not a valid page → agent message. */
  invalid: 'invalid',
  /** A result for an id the server never issued. */
  unknown_id: 'unknown_id',
  /** An id, confirmId or clientId bound to another user, conversation or page load. */
  mismatch: 'mismatch',
  /** A second result for the same id. */
  duplicate: 'duplicate',
  /** A result after its call's deadline. */
  late: 'late',
  /** A confirmed whose confirmId no accepted needs_confirmation carried. */
  unknown_confirm: 'unknown_confirm',
  /** A second confirmed for the same confirmId. */
  duplicate_confirm: 'duplicate_confirm',
  /** A confirmed whose page is gone or whose lifetime passed. */
  expired_confirm: 'expired_confirm',
  /** A manifest older than the one stored for its page load. */
  old_rev: 'old_rev',
} as const

/**
 * The validator's tables for page → agent messages: the properties each strict object allows (an
 * object with any other property is invalid; manifest entries and hints are not strict), the
 * `cancelled.by` values, and the refused codes that may carry `rev`.
 */
export const VALIDATION = {
  protocol: PROTOCOL_VERSION,
  /** Allowed properties of each page → agent message type. */
  messageKeys: {
    manifest: ['protocol', 'type', 'clientId', 'rev', 'tools'],
    changed: ['protocol', 'type', 'clientId', 'rev'],
    result: ['protocol', 'type', 'clientId', 'id', 'result'],
    confirmed: ['protocol', 'type', 'clientId', 'confirmId', 'result'],
  },
  /** The agent → page types (a page never sends them). */
  toPageTypes: ['call', 'describe', 'cancel'],
  /** Allowed properties of each tool result status. */
  resultKeys: {
    ok: ['status', 'data'],
    invalid: ['status', 'issues'],
    refused: ['status', 'code', 'message', 'rev'],
    needs_confirmation: ['status', 'confirmId', 'summary', 'changes'],
    cancelled: ['status', 'by'],
    error: ['status', 'message'],
  },
  /** Allowed properties of an `invalid` result's issue. */
  issueKeys: ['path', 'message'],
  /** Allowed properties of a `needs_confirmation` result's change. */
  changeKeys: ['path', 'before', 'after'],
  cancelledBy: ['operator', 'signal', 'policy'],
  refusedCodes: Object.values(REFUSED_CODES),
  /** Refused codes that may carry `rev`. */
  refusedWithRev: [REFUSED_CODES.unknown_tool, REFUSED_CODES.stale],
  /** Known hints: booleans when present. */
  hints: ['readOnly', 'consequential', 'destructive', 'untrustedContent'],
  /** A full tool name. */
  toolNamePattern: '^[A-Za-z0-9_.-]{1,128}$',
  /** An `llmName`. */
  llmNamePattern: '^[a-zA-Z0-9_-]{1,64}$',
  /** Largest `rev` (JavaScript's largest safe integer). */
  maxRev: Number.MAX_SAFE_INTEGER,
} as const
