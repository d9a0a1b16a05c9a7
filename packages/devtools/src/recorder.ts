// The devtools recorder: what the panel shows, built only from the registry's public consumer API
// (`watch`-like revisions, `observe`d calls, their progress, results, confirmations and calls blocked before they
// ran, consumers' published `statuses`, `redact`). It holds what a
// confirmation card shows and nothing more: inputs arrive redacted, results are redacted here, a
// call's meta is reduced to its trace id, and an error event keeps its code and message, never its cause.
import type {
  BlockedReason,
  Caller,
  CallMeta,
  ConfirmMode,
  ConsumerHost,
  ConsumerStatus,
  HintClass,
  Issue,
  ToolHints,
  ToolmarkEvents,
  ToolResult,
} from '@toolmark/core'
import { newId, ROUTES_STATUS } from '@toolmark/core/adapter'

/** Every caller, in the order the panel lists them. */
export const CALLERS: readonly Caller[] = ['inapp', 'webmcp', 'mcp', 'tour', 'test', 'human']

/** The `format` field of an exported session. */
export const SESSION_FORMAT = 'toolmark-devtools-session'

/** One tool as the registry panel shows it. */
export interface ToolRow {
  /** Full tool name. */
  name: string
  /** The tool's title, when it declares one. */
  title?: string
  /** What agents read about the tool. */
  description: string
  /** Its hints (read-only, consequential, destructive, untrusted content). */
  hints: ToolHints
  /** The scope path (`''` at the root). */
  scope: string
  /** Whether a non-human caller needs the user's approval to run it. */
  needsConfirmation: boolean
  /** The callers whose manifest lists it (what the policy lets each caller see). */
  callers: Caller[]
  /** Its input JSON Schema. */
  inputSchema: unknown
  /** The input paths that are redacted, when it declares some. */
  sensitivePaths?: readonly string[]
}

/** What changed between two revisions. */
export interface RevisionDiff {
  /** Tools that are new. */
  added: string[]
  /** Tools that are gone. */
  removed: string[]
  /** Tools in both, with the fields that differ (`description`, `title`, `hints`, `scope`, `inputSchema`). */
  changed: { name: string; fields: string[] }[]
}

/** The registry at one revision, with what changed since the revision before it. */
export interface Revision {
  /** The manifest revision. */
  rev: number
  /** Epoch milliseconds when the recorder saw it. */
  at: number
  /** The visible tools, sorted by name. */
  tools: ToolRow[]
  /** Against the previous recorded revision; everything is `added` for the first one. */
  diff: RevisionDiff
}

/** One confirmation of a call, from request to outcome. */
export interface ConfirmationEntry {
  /** The confirmation's id (what `tm.confirmPending` takes). */
  confirmId: string
  /** `deferred`: the caller cannot wait in the page; `inline`: the app's confirm handler asks now. */
  mode: ConfirmMode
  /** Why this mode, in plain words. */
  why: string
  /** The summary the card shows. */
  summary: string
  /** Whether the card offers Delete (a destructive tool). */
  destructive: boolean
  /** The redacted input the card shows. */
  input: unknown
  /** Epoch milliseconds. */
  requestedAt: number
  /** Epoch milliseconds after which approval is refused. */
  expiresAt: number
  /** Epoch milliseconds when it settled. */
  settledAt?: number
  /** How it settled; absent while open. */
  outcome?: 'approved' | 'rejected' | 'expired' | 'stale' | 'cancelled'
  /** From request to outcome, in milliseconds. */
  waitMs?: number
}

/** How the registry decided on a call, read from its result. */
export interface Decision {
  /** `allowed` (it ran), `confirm` (it waited for the user), `refused`, `invalid`, `cancelled`, `error`, `running`. */
  kind: 'running' | 'allowed' | 'confirm' | 'refused' | 'invalid' | 'cancelled' | 'error'
  /** The refused code, when refused. */
  code?: string
  /** One sentence on why (the policy rule behind it, when the policy decided). */
  reason: string
}

/** One call of the timeline. */
export interface CallEntry {
  /** The call's id. */
  callId: string
  /** Full tool name. */
  tool: string
  /** Who called. */
  caller: Caller
  /** The input, redacted at the tool's sensitive paths; `undefined` for a call refused before it started. */
  input: unknown
  /** Epoch milliseconds. */
  startedAt: number
  /** The W3C trace id of the call's `traceparent` meta, when it has one. */
  traceId?: string
  /** The latest result (a deferred call ends with its confirmation's result), redacted. */
  result?: ToolResult
  /** From the call to its first answer, in milliseconds. */
  durationMs?: number
  /** How long it waited in its scope's queue before the tool started, in milliseconds. */
  queuedMs?: number
  /** Why it never reached the tool's `run`, as the registry reported it (see {@link explain}). */
  blocked?: BlockedReason
  /** The id of the grant (a remembered approval) that let it run without a confirmation card. */
  grant?: string
  /** Validation issues of an `invalid` result. */
  issues?: Issue[]
  /** How the registry decided, in plain words. */
  decision: Decision
  /** Its confirmations, oldest first. */
  confirmations: ConfirmationEntry[]
  /** The latest progress its tool reported while it ran (`ctx.progress`), without preliminary data. */
  progress?: { fraction?: number; message?: string; at: number }
}

/** An `error` event, without its cause. */
export interface ErrorEntry {
  /** Epoch milliseconds. */
  at: number
  /** The error event code. */
  code: string
  /** Its message. */
  message: string
  /** Its level. */
  level: 'error' | 'warning'
  /** The tool it concerns, if any. */
  tool?: string
  /** The call it concerns, if any. */
  callId?: string
}

/** Everything the recorder holds; what is exported and imported as JSON. */
export interface Session {
  /** Always `'toolmark-devtools-session'`. */
  format: typeof SESSION_FORMAT
  /** The session format version. */
  version: 1
  /** Revisions, oldest first. */
  revisions: Revision[]
  /** Calls, oldest first. */
  calls: CallEntry[]
  /** Error and warning events, oldest first. */
  errors: ErrorEntry[]
  /** The statuses consumers publish (bridge, WebMCP, MCP pairing, tours), by name; absent in older files. */
  consumers?: Record<string, ConsumerStatus>
}

export interface RecorderOptions {
  /** How many calls, revisions and errors to keep (oldest dropped first). Default 200. */
  limit?: number
}

/** Marks the calls the devtools playground runs (their {@link CallMeta}). */
export const PLAYGROUND_META = { source: '@toolmark/devtools playground' } as const

/** A live recording of one registry. */
export interface Recorder {
  /** The recording so far (the same object, mutated; read it in a `subscribe` listener). */
  readonly session: Session
  /** Called after each change, at most once per microtask. Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
  /** The session as JSON, redacted as recorded. */
  export(): string
  /** Stop recording. */
  dispose(): void
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/

/** The trace id of a call's meta `traceparent`, or undefined. */
function traceIdOf(meta: CallMeta | undefined): string | undefined {
  const tp = meta?.traceparent
  if (typeof tp !== 'string') return undefined
  const m = TRACEPARENT.exec(tp.trim())
  return m && !/^0+$/.test(m[1]!) ? m[1] : undefined
}

const WHY_MODE: Record<ConfirmMode, string> = {
  deferred:
    'Deferred: the caller cannot wait in the page, so the call answered needs_confirmation and the card waits for the user.',
  inline:
    "Inline: the caller waits in the page, so the app's confirm handler asked the user before the tool ran.",
}

const REFUSED_WHY: Record<string, string> = {
  not_allowed:
    "The policy does not let this caller call tools of this hint class (it is not in the caller's manifest).",
  unknown_tool: 'No visible tool has this name.',
  stale: 'The tool list changed since the revision the caller saw.',
  busy: "The tool's scope already has too many calls waiting.",
  confirmation_expired: 'The confirmation expired or was already used.',
  undo_unavailable: 'Nothing to undo for this call.',
}

const CLASS_WORDS: Record<HintClass, string> = {
  readOnly: 'read-only',
  consequential: 'consequential',
  destructive: 'destructive',
  unannotated: 'unannotated',
}

/** The class a policy reasons about: destructive > consequential > readOnly > unannotated. */
export function hintClassOf(hints: ToolHints): HintClass {
  if (hints.destructive) return 'destructive'
  if (hints.consequential) return 'consequential'
  if (hints.readOnly) return 'readOnly'
  return 'unannotated'
}

/** Why a call never reached its tool, in plain words, from the reason the registry reported. */
export function explain(reason: BlockedReason, tool: string, caller: string): string {
  switch (reason.code) {
    case 'not_allowed': {
      const { rule } = reason
      if (rule.hintClass === undefined)
        return `"${rule.caller}" is not a caller (inapp, webmcp, mcp, tour, test or human), so nothing is allowed.`
      const cls = CLASS_WORDS[rule.hintClass]
      if (rule.noConfirmHandler)
        return `The policy lets ${rule.caller} call ${cls} tools, but ${tool} must be confirmed inline for ${rule.caller} and the app has no confirm handler (createToolmark({ confirm })), so it is not offered.`
      const allowed = rule.allowed?.map((c) => CLASS_WORDS[c]).join(', ') || 'no'
      return `The policy lets ${rule.caller} call ${allowed} tools (policy.${rule.caller}); ${tool} is ${cls}, so it is not in ${rule.caller}'s manifest.`
    }
    case 'unknown_tool':
      if (reason.callers)
        return `${tool} is hidden from ${caller}: its definition limits it to ${reason.callers.join(', ')} (callers), so ${caller} sees no tool by that name.`
      return `No visible tool is named ${tool} at revision ${reason.currentRev}${reason.rev === undefined ? '' : ` (the caller saw revision ${reason.rev})`}: not registered, or its scope is hidden.`
    case 'stale':
      if (reason.rev === undefined)
        return `${tool} (or the form its card showed) changed after the user approved it, so the approval was not used; the registry is at revision ${reason.currentRev}.`
      return `${tool} went away after revision ${reason.rev}, which ${caller} saw; the registry is at revision ${reason.currentRev}. The caller must read the tool list again.`
    case 'invalid':
      return `The input failed validation (${reason.issues.length} ${reason.issues.length === 1 ? 'issue' : 'issues'}); the tool did not run.`
    case 'busy':
      return "The tool's scope already had 32 calls queued or running; the tool did not run."
    case 'cancelled':
      return "Cancelled (the caller's signal or the call deadline) before the tool started."
    default:
      return `${REFUSED_WHY[reason.code] ?? `Answered ${reason.code}`} The tool did not run.`
  }
}

/** The policy rule that let `caller` call a tool with these hints, in plain words. */
function allowedBy(caller: Caller, hints: ToolHints | undefined): string {
  if (caller === 'human') return 'A human may call every tool.'
  if (!hints) return `Allowed by the policy for ${caller}.`
  return `Allowed: the policy lets ${caller} call ${CLASS_WORDS[hintClassOf(hints)]} tools.`
}

/**
 * How the registry decided, in plain words, from a call's result and confirmations (and, for a
 * call that never ran, the reason the registry reported; `hints` name the policy rule).
 */
export function decide(
  result: ToolResult | undefined,
  confirmations: readonly ConfirmationEntry[],
  call?: {
    tool: string
    caller: Caller
    blocked?: BlockedReason | undefined
    hints?: ToolHints | undefined
    grant?: string | undefined
  },
): Decision {
  const confirmed = confirmations.length > 0
  const blocked = call?.blocked
  if (blocked && call && result?.status !== 'ok') {
    const kind =
      blocked.code === 'invalid' ? 'invalid' : blocked.code === 'cancelled' ? 'cancelled' : 'refused'
    const d: Decision = { kind, reason: explain(blocked, call.tool, call.caller) }
    if (kind === 'refused') d.code = blocked.code
    return d
  }
  const rule = call ? `${allowedBy(call.caller, call.hints)} ` : 'Allowed by the policy; '
  if (!result)
    return {
      kind: confirmed ? 'confirm' : 'running',
      reason: confirmed ? 'Waiting for the user.' : 'Running.',
    }
  switch (result.status) {
    case 'ok':
      if (confirmed) return { kind: 'confirm', reason: `${rule}The user approved it, then it ran.` }
      return call?.grant
        ? {
            kind: 'allowed',
            reason: `${rule}It ran without a card: grant ${call.grant} (an approval the user chose to remember for this tool and caller).`,
          }
        : { kind: 'allowed', reason: `${rule}No confirmation needed; it ran.` }
    case 'needs_confirmation':
      return { kind: 'confirm', reason: `${rule}It needs the user to approve (deferred).` }
    case 'refused':
      return {
        kind: 'refused',
        code: result.code,
        reason: REFUSED_WHY[result.code] ?? result.message,
      }
    case 'invalid':
      return { kind: 'invalid', reason: 'The input failed validation; the tool did not run.' }
    case 'cancelled': {
      const last = confirmations[confirmations.length - 1]?.outcome
      const byUser = last === 'rejected' || last === 'expired'
      return {
        kind: 'cancelled',
        reason: byUser ? `The confirmation was ${last}; the tool did not run.` : `Cancelled by ${result.by}.`,
      }
    }
    default:
      return { kind: 'error', reason: 'The tool failed (details stay in the page console).' }
  }
}

/** The tools visible now, with the callers that may see each. */
export function snapshotTools(host: ConsumerHost): ToolRow[] {
  const byCaller = CALLERS.map(
    (c) => [c, new Set(host.manifest({ caller: c }).tools.map((t) => t.name))] as const,
  )
  return host.manifest({ detail: 'full' }).tools.map((t) => {
    const info = host.info(t.name)
    const row: ToolRow = {
      name: t.name,
      description: t.description,
      hints: { ...t.hints },
      scope: info?.scope ?? '',
      needsConfirmation: info?.needsConfirmation ?? false,
      callers: byCaller.filter(([, names]) => names.has(t.name)).map(([c]) => c),
      inputSchema: t.inputSchema,
    }
    if (t.title !== undefined) row.title = t.title
    if (t.sensitivePaths) row.sensitivePaths = [...t.sensitivePaths]
    return row
  })
}

/**
 * The route that owns a scope, from the `routes` status a route-aware adapter publishes
 * (`@toolmark/next`: the segment, e.g. `app/settings/page`); the nearest enclosing route scope wins
 * (`app.settings.form` → `app.settings`'s). `undefined` when no adapter says.
 */
export function routeOf(
  statuses: Readonly<Record<string, ConsumerStatus>> | undefined,
  scope: string,
): string | undefined {
  const scopes = statuses?.[ROUTES_STATUS]?.scopes
  if (scopes === null || typeof scopes !== 'object') return undefined
  const routes = scopes as Record<string, unknown>
  for (let path = scope; ; path = path.slice(0, Math.max(0, path.lastIndexOf('.')))) {
    const route = routes[path]
    if (typeof route === 'string') return route
    if (path === '') return undefined
  }
}

const DIFF_FIELDS = ['description', 'title', 'hints', 'scope', 'inputSchema'] as const

/** Tools added, removed and changed (by field) from `before` to `after`. */
export function diffTools(before: readonly ToolRow[], after: readonly ToolRow[]): RevisionDiff {
  const old = new Map(before.map((t) => [t.name, t]))
  const now = new Map(after.map((t) => [t.name, t]))
  const diff: RevisionDiff = { added: [], removed: [], changed: [] }
  for (const t of after) {
    const prev = old.get(t.name)
    if (!prev) {
      diff.added.push(t.name)
      continue
    }
    const fields = DIFF_FIELDS.filter((f) => JSON.stringify(prev[f]) !== JSON.stringify(t[f]))
    if (fields.length > 0) diff.changed.push({ name: t.name, fields: [...fields] })
  }
  for (const t of before) if (!now.has(t.name)) diff.removed.push(t.name)
  return diff
}

/** A JSON copy (drops functions, turns what JSON cannot hold into `'[unserializable]'`). */
function plain<T>(value: T): T {
  try {
    const json = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
    return json === undefined ? value : (JSON.parse(json) as T)
  } catch {
    return '[unserializable]' as T
  }
}

/**
 * Starts recording `host` (what `tm.use` hands a consumer): one revision per published manifest,
 * one timeline entry per call of every caller, and the registry's error events.
 */
export function createRecorder(host: ConsumerHost, options: RecorderOptions = {}): Recorder {
  const limit = options.limit ?? 200
  const session: Session = {
    format: SESSION_FORMAT,
    version: 1,
    revisions: [],
    calls: [],
    errors: [],
    consumers: plain(host.statuses()),
  }
  const byId = new Map<string, CallEntry>()
  const listeners = new Set<() => void>()
  let queued = false
  const changed = (): void => {
    if (queued) return
    queued = true
    queueMicrotask(() => {
      queued = false
      for (const l of [...listeners]) l()
    })
  }
  const trim = <T>(list: T[], onDrop?: (item: T) => void): void => {
    while (list.length > limit) {
      const gone = list.shift()!
      onDrop?.(gone)
    }
  }

  const revision = (): void => {
    const last = session.revisions[session.revisions.length - 1]
    if (last?.rev === host.rev) return
    const tools = snapshotTools(host)
    session.revisions.push({
      rev: host.rev,
      at: Date.now(),
      tools,
      diff: diffTools(last?.tools ?? [], tools),
    })
    trim(session.revisions)
    changed()
  }

  /** The tool's hints in the newest revision (for the policy rule in words). */
  const hintsOf = (tool: string): ToolHints | undefined =>
    session.revisions.at(-1)?.tools.find((t) => t.name === tool)?.hints
  const decideFor = (entry: CallEntry): Decision =>
    decide(entry.result, entry.confirmations, {
      tool: entry.tool,
      caller: entry.caller,
      blocked: entry.blocked,
      hints: hintsOf(entry.tool),
      grant: entry.grant,
    })
  const settle = (entry: CallEntry, result: ToolResult, durationMs?: number): void => {
    const r = plain(
      result.status === 'ok' && 'data' in result
        ? { ...result, data: host.redact(entry.tool, result.data) }
        : result,
    )
    entry.result = r
    if (durationMs !== undefined) entry.durationMs = durationMs
    if (r.status === 'invalid') entry.issues = r.issues
    entry.decision = decideFor(entry)
  }

  const add = (
    e: { callId: string; tool: string; caller: Caller },
    input: unknown,
    meta: CallMeta | undefined,
  ): CallEntry => {
    const entry: CallEntry = {
      callId: e.callId,
      tool: e.tool,
      caller: e.caller,
      input,
      startedAt: Date.now(),
      decision: decide(undefined, []),
      confirmations: [],
    }
    const traceId = traceIdOf(meta)
    if (traceId) entry.traceId = traceId
    byId.set(e.callId, entry)
    session.calls.push(entry)
    trim(session.calls, (gone) => byId.delete(gone.callId))
    return entry
  }
  const onCall = (e: ToolmarkEvents['call'], meta: CallMeta | undefined): void => {
    // The call event's input is already redacted at the tool's sensitive paths.
    add(e, plain(e.input), meta)
    changed()
  }
  const onResult = (e: ToolmarkEvents['result'], meta: CallMeta | undefined): void => {
    const entry = byId.get(e.callId) ?? add(e, undefined, meta)
    if (e.queuedMs !== undefined) entry.queuedMs = e.queuedMs
    if (typeof e.grant === 'string') entry.grant = e.grant
    // A deferred approval's run reports its own result: keep the duration of the first answer.
    settle(entry, e.result, entry.durationMs ?? e.durationMs)
    changed()
  }
  const onBlocked = (e: ToolmarkEvents['blocked'], meta: CallMeta | undefined): void => {
    // Refused before the call event (policy, unknown or stale tool, busy, aborted): a new entry,
    // with the input redacted by the registry (none for an unknown tool). Later (invalid input, a
    // cancelled queued call, an approval gone stale): the entry of its call event.
    const entry = byId.get(e.callId) ?? add({ ...e, caller: e.caller as Caller }, plain(e.input), meta)
    entry.blocked = plain(e.reason)
    settle(entry, e.result)
    changed()
  }
  const onProgress = (e: ToolmarkEvents['progress']): void => {
    const entry = byId.get(e.callId)
    if (!entry || entry.result) return
    // Preliminary data is left out: it has no sensitive paths to redact it by.
    const progress: NonNullable<CallEntry['progress']> = { at: Date.now() }
    if (e.fraction !== undefined) progress.fraction = e.fraction
    if (e.message !== undefined) progress.message = e.message
    entry.progress = progress
    changed()
  }
  const onConfirm = (e: ToolmarkEvents['confirm']): void => {
    const entry = byId.get(e.callId)
    if (!entry) return
    if (e.phase === 'requested') {
      const r = e.request
      entry.confirmations.push({
        confirmId: r.confirmId,
        mode: e.mode,
        why: WHY_MODE[e.mode],
        summary: r.summary,
        destructive: r.destructive,
        input: plain(r.input),
        requestedAt: Date.now(),
        expiresAt: r.expiresAt,
      })
    } else {
      const c = entry.confirmations.find((x) => x.confirmId === e.confirmId)
      if (c) {
        c.settledAt = Date.now()
        c.outcome = e.outcome
        c.waitMs = c.settledAt - c.requestedAt
      }
      if (e.result) settle(entry, e.result)
    }
    entry.decision = decideFor(entry)
    changed()
  }

  const offs = [
    host.subscribe(revision),
    host.observe({
      call: onCall,
      result: onResult,
      confirm: onConfirm,
      blocked: onBlocked,
      progress: onProgress,
    }),
    host.events.on('status', () => {
      session.consumers = plain(host.statuses())
      changed()
    }),
    host.events.on('error', (e) => {
      const entry: ErrorEntry = { at: Date.now(), code: e.code, message: e.message, level: e.level }
      if (e.tool !== undefined) entry.tool = e.tool
      if (e.callId !== undefined) entry.callId = e.callId
      session.errors.push(entry)
      trim(session.errors)
      changed()
    }),
  ]
  revision()

  return {
    session,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    export: () => exportSession(session),
    dispose() {
      for (const off of offs) off()
      listeners.clear()
    },
  }
}

/**
 * Runs `tool` as `caller` with `input`, exactly as that caller would (lookup, policy, validation,
 * confirmation, queue): the playground has no back door. The recorder sees it like any call,
 * refusals included.
 */
export function runAs(host: ConsumerHost, tool: string, input: unknown, caller: Caller): Promise<ToolResult> {
  return host.run(tool, input, { caller, callId: newId(), meta: PLAYGROUND_META })
}

/** A session as JSON (two-space indent). */
export function exportSession(session: Session): string {
  return JSON.stringify(session, null, 2)
}

/**
 * Reads an exported session. Anything else (bad JSON, another format or version, missing lists)
 * throws a `TypeError` whose message says what is wrong.
 */
export function importSession(text: string): Session {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    throw new TypeError('Not a Toolmark devtools session: the file is not JSON')
  }
  const s = data as Partial<Session> | null
  if (!s || typeof s !== 'object' || s.format !== SESSION_FORMAT)
    throw new TypeError(`Not a Toolmark devtools session: "format" is not "${SESSION_FORMAT}"`)
  if (s.version !== 1) throw new TypeError('Unsupported Toolmark devtools session version (expected 1)')
  if (!Array.isArray(s.revisions) || !Array.isArray(s.calls) || !Array.isArray(s.errors))
    throw new TypeError('Not a Toolmark devtools session: "revisions", "calls" and "errors" must be lists')
  return s as Session
}
