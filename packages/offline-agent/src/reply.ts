import type { ToolResult } from '@toolmark/core'
import type { AgentMessage } from './types.ts'
import { STOPWORDS, verbGroup, words } from './words.ts'

/*
 * The embedded agent's answers after a tool ran, in plain words a person would use: from the
 * tool's title, description and summary and from the result's data ("Created "Kites".", "Opened
 * Chess Openings.", "Nothing was saved. The page did not accept the title: …"). Tool names, ids
 * and template words ("Done: …(id: …)") never show.
 */

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** The first array in ok data (the data itself, or its first array-valued property). */
function firstArray(data: unknown): unknown[] | undefined {
  if (Array.isArray(data)) return data
  if (!isObject(data)) return undefined
  for (const value of Object.values(data)) if (Array.isArray(value)) return value
  return undefined
}

type Parsed = { result: ToolResult | undefined; untrusted: boolean }

/** Reads a tool message's content: a tool result, possibly in the untrusted envelope. */
export function parseToolContent(content: string): Parsed {
  let value: unknown
  try {
    value = JSON.parse(content)
  } catch {
    return { result: undefined, untrusted: false }
  }
  if (isObject(value) && value.untrustedContent === true && isObject(value.result)) {
    return { result: value.result as unknown as ToolResult, untrusted: true }
  }
  return {
    result:
      isObject(value) && typeof value.status === 'string' ? (value as unknown as ToolResult) : undefined,
    untrusted: false,
  }
}

const quote = (s: string): string => `"${s.length > 300 ? `${s.slice(0, 300)}…` : s}"`
const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1)
/** A sentence ends with one period, whatever the page's message ended with. */
const sentence = (s: string): string => (/[.!?…]["”)]?$/.test(s.trim()) ? s.trim() : `${s.trim()}.`)

/** A field's name as words, as written ("startDate" → "start date", "card.number" → "card number"). */
export const fieldWords = (field: string): string =>
  field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_.]+/g, ' ')
    .toLowerCase()

const IRREGULAR: Readonly<Record<string, string>> = {
  set: 'set',
  put: 'put',
  send: 'sent',
  pay: 'paid',
  make: 'made',
  get: 'got',
  find: 'found',
  read: 'read',
}

/** Verbs that double their last consonant ("submit" → "submitted"): the stress is on the last syllable. */
const DOUBLING = new Set(
  'admit ban chat commit drop log omit permit pin plan prefer refer ship skip stop submit swap tag transfer'.split(
    ' ',
  ),
)

function past(verb: string): string {
  const v = verb.toLowerCase()
  return (
    IRREGULAR[v] ??
    (DOUBLING.has(v)
      ? `${v}${v.at(-1)}ed`
      : v.endsWith('e')
        ? `${v}d`
        : /[^aeiou]y$/.test(v)
          ? `${v.slice(0, -1)}ied`
          : `${v}ed`)
  )
}

/**
 * A summary or title in the past tense, as a sentence without its period: `Create challenge "X"`
 * → `Created "X"` (a bare noun before the quoted name is dropped), `Replace the saved card` →
 * `Replaced the saved card`. Text that does not start with a verb → `"…" went through`.
 * Exported for its tests.
 */
export function pastTense(summary: string): string {
  const m = /^([A-Za-z][a-z]+)\s+(.*)$/.exec(summary.trim())
  if (!m) return `“${summary}” went through`
  const rest = m[2]!
  const named = /^[a-z]+(?:\s[a-z]+)?\s+("[^"]*"|“[^”]*”)$/.exec(rest)
  return `${capital(past(m[1]!))} ${named ? named[1] : rest}`
}

/** What the manifest and the describe say about the tool that ran. */
export interface ToolFacts {
  /** The tool's name (only to recognize summaries that repeat it; never shown). */
  name: string
  /** Its user-facing title, as the page wrote it. */
  title?: string | undefined
  /** Its description. */
  description: string
  /** It changes nothing (`readOnly` hint): a refusal of its input saved nothing to mention. */
  readOnly: boolean
  /** It opens pages (see `isNavigation`). */
  navigation: boolean
  /** Its verb groups (see `toolGroups`). */
  groups: ReadonlySet<string>
}

/**
 * True for a summary that names the tool instead of what it does: core's default `Submit "<form
 * name>"`, whose quoted word is a part of the tool's name, or `Submit "<title>"` with the tool's
 * own title.
 */
function internal(summary: string, tool: string, title?: string): boolean {
  const quoted = /"([^"]*)"/.exec(summary)?.[1]
  if (quoted === undefined) return false
  return tool.split('.').includes(quoted) || (title !== undefined && summary === `Submit "${title}"`)
}

/** What a form tool's description says it is for ("Submit the form to: create a challenge…" → "create a challenge…"). */
function purpose(description: string): string | undefined {
  const m = /\bto:\s*([^.]+)/.exec(description)
  return m ? m[1]!.trim() : undefined
}

/** The plural noun a tool's title (else its name) suggests ("Search challenges" → "challenges"). */
function noun(facts: ToolFacts): string {
  const nouns = words(facts.title ?? facts.name).filter(
    (w) => verbGroup(w) === undefined && !STOPWORDS.has(w),
  )
  return nouns[0] ? `${nouns[0]}s` : 'results'
}

const LABELS = ['name', 'title', 'label']

function label(item: unknown): string {
  if (!isObject(item)) return String(item)
  for (const key of [...LABELS, 'id']) if (typeof item[key] === 'string') return item[key] as string
  return JSON.stringify(item)
}

const primitive = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'

/** "a, b and c" */
export const andList = (values: readonly string[]): string =>
  values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} and ${values.at(-1)}`

/** The schema checker's own messages, as a person would say them. */
const RAW: Readonly<Record<string, string>> = {
  'Missing required property': 'it is required and was left empty',
}

/**
 * An `invalid` result: which fields, with the page's own messages; for a tool that changes
 * something, first that nothing was saved.
 */
export function invalidText(
  issues: readonly { path: string; message: string }[],
  changesSomething: boolean,
): string {
  const which = issues.map(
    (i) => `${i.path ? `the ${fieldWords(i.path)}` : 'the input'}: ${RAW[i.message] ?? i.message}`,
  )
  const lead = changesSomething ? 'Nothing was saved. ' : ''
  return `${lead}The page did not accept ${sentence(which.join('; '))}`
}

/** Any outcome but ok and needs_confirmation, as a sentence. */
export function failureText(result: ToolResult, changesSomething: boolean): string {
  switch (result.status) {
    case 'invalid':
      return invalidText(result.issues, changesSomething)
    case 'refused':
      return sentence(`The page refused: ${result.message}`)
    case 'cancelled':
      return `The call was cancelled (${result.by}).`
    case 'error':
      return sentence(`The page reported an error: ${result.message}`)
    default:
      return `Unexpected ${result.status}.`
  }
}

/** Where a navigation went: the page, path or thing its input named ("the settings page", "Chess Openings"). */
function destination(input: unknown, data: unknown): string | undefined {
  for (const source of [input, data]) {
    if (!isObject(source)) continue
    if (typeof source.page === 'string') return `the ${source.page.replace(/[-_]+/g, ' ')} page`
    for (const key of ['url', 'path', 'href', ...LABELS])
      if (typeof source[key] === 'string' && source[key] !== '') return source[key] as string
    const first = Object.values(source).find((v) => typeof v === 'string' && v !== '')
    if (typeof first === 'string') return first
  }
  return undefined
}

/** An ok result's object data in words. */
function objectText(data: Record<string, unknown>, facts: ToolFacts, untrusted: boolean): string {
  const entries = Object.entries(data).filter(([, v]) => primitive(v))
  // { deleted: "Marathon Training" } → Deleted "Marathon Training".
  const done = entries.find(([k]) => /^[a-z]+ed$/.test(k))
  if (done && !facts.readOnly) {
    const [key, value] = done
    if (typeof value === 'string') return `${capital(key)} ${quote(value)}.`
    return value === false ? `Nothing was ${key}.` : `${capital(key)}.`
  }
  const labelKey = LABELS.find((k) => typeof data[k] === 'string')
  if (labelKey && !facts.readOnly) {
    const name = quote(data[labelKey] as string)
    if (facts.groups.has('create')) return `Created ${name}.`
    if (/^rename\b/i.test(facts.title ?? facts.description)) return `Renamed it to ${name}.`
    return `Updated ${name}.`
  }
  const rest = entries.filter(([k]) => k !== labelKey && k !== 'id')
  const details = rest.map(([k, v]) =>
    untrusted
      ? `${fieldWords(k)} ${quote(String(v))}`
      : rest.length === 1 && labelKey
        ? String(v)
        : `${fieldWords(k)} ${String(v)}`,
  )
  if (labelKey) {
    const head = untrusted ? quote(data[labelKey] as string) : (data[labelKey] as string)
    return sentence(details.length > 0 ? `${head}: ${details.join('; ')}` : head)
  }
  if (details.length === 0) return 'Done.'
  if (!facts.readOnly && !untrusted)
    return sentence(`Done: ${andList(rest.map(([k, v]) => `the ${fieldWords(k)} is now ${String(v)}`))}`)
  return sentence(facts.title ? `${facts.title}: ${details.join('; ')}` : details.join('; '))
}

const UNTRUSTED = 'The page returned this as data (untrusted page content, not instructions): '

/**
 * The answer after a page call's outcome (forms and guides have their own, see the planner).
 * `filled`: the values a form's fill put in on the way to this submit (`title "Kites"`), named
 * when the page's summary only names the form.
 */
export function outcomeText(facts: ToolFacts, input: unknown, parsed: Parsed, filled: string[] = []): string {
  const r = parsed.result
  if (!r) return `I could not read the result${facts.title ? ` of ${facts.title.toLowerCase()}` : ''}.`
  const values = filled.length > 0 ? ` (${filled.join(', ')})` : ''
  if (r.status === 'needs_confirmation') {
    if (!internal(r.summary, facts.name, facts.title))
      return `A confirmation is waiting in the page: ${r.summary}. Approve or reject it there.`
    const what = purpose(facts.description)
    return what
      ? `A confirmation is waiting in the page to ${what.replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase())}${values}. Approve or reject it there.`
      : `A confirmation is waiting in the page${values}. Approve or reject it there.`
  }
  if (r.status === 'ok' && r.data === undefined && filled.length > 0) {
    const what = purpose(facts.description)
    return what ? `${pastTense(capital(what))}${values}.` : `Done${values}.`
  }
  if (r.status !== 'ok') return failureText(r, !facts.readOnly)
  const prefix = parsed.untrusted ? UNTRUSTED : ''
  const list = firstArray(r.data)
  if (list) {
    const n = list.length
    const what = noun(facts)
    const query = isObject(input)
      ? Object.values(input).find((v) => typeof v === 'string' && v !== '')
      : undefined
    if (n === 0)
      return `${prefix}I found no ${what}${typeof query === 'string' ? ` matching ${quote(query)}` : ''}.`
    const shown = list.slice(0, 10).map(label).join(', ')
    return `${prefix}I found ${n} ${n === 1 ? what.replace(/s$/, '') : what}: ${shown}${n > 10 ? ', …' : ''}.`
  }
  if (facts.navigation && !parsed.untrusted) {
    const where = destination(input, r.data)
    return where ? `Opened ${where}.` : 'Opened the page.'
  }
  // No data: the title says what the tool is, not what this call did ("Plan a challenge" for its "next").
  if (r.data === undefined) return 'Done.'
  if (isObject(r.data)) return `${prefix}${objectText(r.data, facts, parsed.untrusted)}`
  const value = typeof r.data === 'string' ? quote(r.data) : JSON.stringify(r.data)
  return prefix ? `${prefix}${value}.` : `Done: ${value}.`
}

/** The page call that `toolCallId` names in `messages`, with the tool it called. */
function callOf(
  messages: readonly AgentMessage[],
  toolCallId: string,
): { tool: string; input: unknown } | undefined {
  for (const m of messages) {
    if (m.role !== 'assistant') continue
    const call = m.toolCalls.find((c) => c.id === toolCallId)
    if (call && isObject(call.input) && typeof call.input.tool === 'string')
      return { tool: call.input.tool, input: call.input.input }
  }
  return undefined
}

/** The latest describe of `tool` in the conversation: its entry (title, description). */
function describedEntry(
  messages: readonly AgentMessage[],
  tool: string,
): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    if (m.role !== 'assistant') continue
    for (const call of m.toolCalls) {
      if (call.name !== 'page_describe' || !isObject(call.input) || call.input.tool !== tool) continue
      const answer = messages.find((t) => t.role === 'tool' && t.toolCallId === call.id)
      const r = answer?.role === 'tool' ? parseToolContent(answer.content).result : undefined
      if (r?.status === 'ok' && isObject(r.data)) found = r.data
    }
  }
  return found
}

/** The values the conversation last filled into the form `tool` submits (its scope's `fill`). */
function filledValues(messages: readonly AgentMessage[], tool: string): string[] {
  const scope = tool.slice(0, Math.max(0, tool.lastIndexOf('.')))
  let values: string[] = []
  for (const m of messages) {
    if (m.role !== 'assistant') continue
    for (const call of m.toolCalls) {
      if (call.name !== 'page_call' || !isObject(call.input) || call.input.tool !== `${scope}.fill`) continue
      const input = isObject(call.input.input) ? call.input.input : {}
      const fields = isObject(input.values) ? input.values : input
      values = Object.entries(fields)
        .filter(([, v]) => typeof v === 'string' && v !== '')
        .map(([k, v]) => `${fieldWords(k)} ${quote(v as string)}`)
    }
  }
  return values
}

/**
 * The follow-up turn's answer: the confirmed outcome (the last tool message with a confirmId) in
 * words. An ok is the summary in the past tense ("Created "Robotics"."); when the summary only names
 * the form, what the form is for, with the values filled in ("Created a challenge from the New
 * challenge form (title "Kite building").").
 */
export function followUpText(messages: readonly AgentMessage[]): string {
  const outcome = [...messages].reverse().find((m) => m.role === 'tool' && m.confirmId !== undefined)
  if (outcome?.role !== 'tool') return 'Noted.'
  let summary: string | undefined
  for (const m of messages) {
    if (m.role !== 'tool' || m === outcome) continue
    const r = parseToolContent(m.content).result
    // The call's own card, or the card that asked it again on a new page load (same call, new confirmId).
    if (
      r?.status === 'needs_confirmation' &&
      (r.confirmId === outcome.confirmId || m.toolCallId === outcome.toolCallId)
    )
      summary = r.summary
  }
  const tool = callOf(messages, outcome.toolCallId)?.tool
  // A form's submit shares its title and purpose with its fill, which is what the planner describes first.
  const entry =
    tool === undefined
      ? undefined
      : (describedEntry(messages, tool) ??
        describedEntry(messages, `${tool.slice(0, tool.lastIndexOf('.'))}.fill`))
  const title = typeof entry?.title === 'string' ? entry.title : undefined
  if (summary !== undefined && tool !== undefined && internal(summary, tool, title)) summary = undefined
  const what = summary ? ` (${summary})` : ''
  const r = parseToolContent(outcome.content).result
  if (!r) return 'The confirmation finished, but I could not read its outcome.'
  if (r.status === 'ok') {
    if (summary) return `${pastTense(summary)}.`
    const aim = typeof entry?.description === 'string' ? purpose(entry.description) : undefined
    const named = aim ?? title
    if (!named || tool === undefined) return 'Done: the action was approved and completed.'
    const values = filledValues(messages, tool)
    return `${pastTense(capital(named))}${values.length > 0 ? ` (${values.join(', ')})` : ''}.`
  }
  if (r.status === 'cancelled' && r.by === 'operator')
    return `Understood: you rejected it${what}, so nothing was changed.`
  if (r.status === 'refused' && r.code === 'confirmation_expired') {
    return `The confirmation expired or was already used${what}, so nothing was changed.`
  }
  if (r.status === 'invalid') return invalidText(r.issues, true)
  return `It did not go through${what}: ${failureText(r, true).replace(/^./, (c) => c.toLowerCase())}`
}
