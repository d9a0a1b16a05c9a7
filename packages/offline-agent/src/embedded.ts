import type { ToolManifestSummary } from '@toolmark/core'
import { MAX_MANIFEST, MAX_TEXT } from './bounds.ts'
import { answerValues, extractInput } from './extract.ts'
import {
  asksToNavigate,
  clauses,
  echo,
  examplePath,
  lookedUpPage,
  matchPage,
  offeringPage,
  type PageOffer,
  pagesOf,
  pathIn,
  targetPhrase,
  targetWords,
  thingsOf,
} from './intent.ts'
import {
  andList,
  failureText,
  fieldWords,
  followUpText,
  outcomeText,
  parseToolContent,
  type ToolFacts,
} from './reply.ts'
import type { AgentMessage, Provider, ProviderEvent, ProviderRequest, ToolCall } from './types.ts'
import {
  chooseTool,
  correct,
  firstSentence,
  isNavigation,
  keywords,
  type ManifestLine,
  parseManifest,
  requestGroup,
  STOPWORDS,
  stem,
  toolGroups,
  VERBS,
  verbGroup,
  vocabularyOf,
  words,
} from './words.ts'

/*
 * The embedded default model: offline and deterministic. Each turn it reads the rendered manifest
 * in page_call's description and the user's message, picks a tool by matching words, fetches its
 * input schema with page_describe, fills the input from the message, calls page_call, and answers
 * in plain words (reply.ts). It knows no tool names: everything comes from the manifest and the
 * schemas.
 *
 * A message may hold several requests ("open the settings page and turn on dark mode", intent.ts):
 * they are served in order, one page call each, and the answer says which part it could not do.
 * Navigation words ("go to…", "open the … page") go to a tool that opens pages, with the page its
 * description or enum names; a request goes only to a tool whose own summary fits its verb ("list"
 * never runs a form's fill, "rename" never a create). A request no tool here serves is answered
 * with the page, listed in the navigation tool's description, that offers it.
 * "Show me how to…" goes to a tool whose description says it gives a guided tour, with the tour
 * whose id the message names; "submit it" prefers the scope of the tool called last; a stepwise
 * form (`mode: 'stepwise'`) asked for with no values gets the first step's fields as a question.
 */

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1)
const quote = (s: string): string => `"${s.length > 300 ? `${s.slice(0, 300)}…` : s}"`

/** The plural noun a tool's name suggests ("orders.delete" → "orders"). */
function noun(tool: string): string {
  const nouns = words(tool).filter((w) => verbGroup(w) === undefined && !STOPWORDS.has(w))
  return nouns[0] ? `${nouns[0]}s` : 'results'
}

/**
 * One plain-language line per tool: its title (what the user sees in the page) and the first
 * sentence of its description. Raw tool names never appear; a tool without a title shows its
 * description only.
 */
function offerLines(tools: readonly ManifestLine[], entries: readonly ToolManifestSummary[]): string {
  return tools
    .map((t) => {
      const title = entries.find((e) => e.name === t.name)?.title?.trim()
      const line = firstSentence(t.description)
      return title ? `- ${title}: ${line}` : `- ${line}`
    })
    .join('\n')
}

const HELP =
  /^\s*(?:help|\?+|menu|options|commands|what can (?:you|i) do(?: here)?|what do you do|how can you help(?: me)?|what are (?:your|the) (?:options|tools|commands))\s*[?!.]*\s*$/i

/** True for "help", "what can you do?" and the like. */
export function isHelpRequest(message: string): boolean {
  return HELP.test(message) || /\bwhat can you do\b/i.test(message)
}

function helpText(manifest: readonly ManifestLine[], entries: readonly ToolManifestSummary[]): string {
  if (manifest.length === 0) return 'The page offers nothing I can do right now.'
  return `Here is what I can do on this page:\n${offerLines(manifest, entries)}`
}

/**
 * The answer for a request no tool on this page serves: that it cannot be done here and, when the
 * navigation tool's description lists a page that offers it, that page and how to get there;
 * otherwise, for the first request of a message, what this page offers (the closest tools first).
 */
function cannotText(
  part: string,
  manifest: readonly ManifestLine[],
  entries: readonly ToolManifestSummary[],
  first: boolean,
): string {
  if (manifest.length === 0) return 'The page offers no tools right now, so I cannot act on it.'
  const titleOf = (name: string) => entries.find((e) => e.name === name)?.title
  const pages = manifest
    .filter((t) => isNavigation(t, titleOf(t.name)))
    .flatMap((t) => pagesOf(t.description))
  const group = requestGroup(part, vocabularyOf(manifest))
  const page = offeringPage(part, group, pages)
  const lead = `I ${first ? 'cannot' : 'could not'} ${echo(part)} on this page`
  if (page) return `${lead}; the ${page.page} page can. Say "go to ${page.page}", then ask me again.`
  if (!first) return `${lead}.`
  const said = new Set(keywords(part))
  const related = manifest.filter(
    (t) => !isNavigation(t, titleOf(t.name)) && words(`${t.name} ${t.description}`).some((w) => said.has(w)),
  )
  return related.length > 0 && group === undefined
    ? `${lead}. These come closest:\n${offerLines(related, entries)}`
    : `${lead}. Here is what I can do:\n${offerLines(manifest, entries)}`
}

/** "a, b or c" */
function orList(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`
}

/** The answer for required values the message did not give: the choices of an enum, else the field names. */
function missingText(
  extraction: { missing: string[]; choices: Record<string, string[]>; unknown: Record<string, string> },
  lead: string,
): string {
  const path = extraction.missing.find((p) => extraction.choices[p])
  if (path) {
    const noun = words(path.split('.').at(-1)!).join(' ')
    const choices = orList(extraction.choices[path]!)
    const instead = extraction.unknown[path]
    return instead
      ? `There is no ${instead} ${noun}. You can choose ${choices}.`
      : `Which ${noun}? You can choose ${choices}.`
  }
  return `${lead} I need: ${extraction.missing.join(', ')}. Please tell me.`
}

const ALL = /\b(?:all|every|everything|each)\b/i

/**
 * A message that opens with "show me how to…", "how do I…", "walk me through…": the user wants to be
 * shown, not to have it done ("search for how to…" is a search).
 */
const HOW_TO =
  /^\s*(?:(?:please|can you|could you|would you)\s+)?(?:show (?:me|us) how|how (?:do|can|should) (?:i|we)|how to|walk (?:me|us) through|guide (?:me|us)|teach (?:me|us))\b/i

/** A tool that shows the user how to do things (a guided tour), by what its description says. */
const SHOWS_HOW = /\b(?:guided tour|walkthrough|tutorial|shows? (?:the user|you)\b[^.]*\bhow)\b/i

/** The page tool the conversation called last (before this turn), for "submit it" after a fill. */
function lastCalled(messages: readonly AgentMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    if (m.role !== 'assistant') continue
    for (const c of [...m.toolCalls].reverse()) {
      if (c.name === 'page_call' && isObject(c.input) && typeof c.input.tool === 'string') return c.input.tool
    }
  }
  return undefined
}

/**
 * The question for a stepwise form when the message gave no values: the fields of its first step
 * (read from the description's "Steps in order: id (a, b); …", else every field), with the choices
 * the schema lists.
 */
/** A stepwise form's value fields (the `values` object of its fill input). */
const valuesSchema = (schema: unknown): Record<string, unknown> => {
  const values = isObject(schema) && isObject(schema.properties) ? schema.properties.values : undefined
  return isObject(values) ? values : {}
}

/** The first step's id and fields, from the description's "Steps in order: id (a, b); …". */
function firstStep(description: string, schema: unknown): { step?: string; fields: string[] } {
  const values = valuesSchema(schema)
  const fields = isObject(values.properties) ? values.properties : {}
  const steps = /Steps in order: ([^.]*)\./.exec(description)?.[1]
  const first = steps ? /^\s*([^\s(;]+)\s*\(([^)]*)\)/.exec(steps) : null
  const names = first
    ? first[2]!
        .split(',')
        .map((f) => f.trim())
        .filter((f) => f in fields)
    : []
  return {
    ...(first ? { step: first[1]! } : {}),
    fields: names.length > 0 ? names : Object.keys(fields),
  }
}

function firstStepText(description: string, schema: unknown, lead: string): string {
  const values = valuesSchema(schema)
  const fields = isObject(values.properties) ? values.properties : {}
  const { step: id, fields: names } = firstStep(description, schema)
  const asked = names.map((f) => {
    const p = fields[f]
    const choices = isObject(p) && Array.isArray(p.enum) ? p.enum.filter((v) => typeof v === 'string') : []
    return choices.length > 0 ? `${fieldWords(f)} (${orList(choices)})` : fieldWords(f)
  })
  const step = id ? ` The first step is ${id.replace(/[-_]+/g, ' ')}:` : ''
  return `${lead}, step by step.${step} what ${asked.length > 0 ? andList(asked) : 'values'} should I fill in?`
}

const isChange = (v: unknown): v is { path: string; after?: unknown } =>
  isObject(v) && typeof v.path === 'string' && ('after' in v || 'before' in v)

/**
 * The answer after a form tool: a fill's field changes ("I filled in name: "Robotics"."), or the
 * step a stepwise form moved to with its fields; undefined for any other result.
 */
function formText(data: unknown, stepwise: boolean): string | undefined {
  const more = stepwise ? ' Tell me the rest, or say "next" for the next step.' : ''
  if (Array.isArray(data) && data.length > 0 && data.every(isChange)) {
    const set = data.map(
      (c) =>
        `${fieldWords(c.path)}: ${c.after === undefined ? '(cleared)' : typeof c.after === 'string' ? quote(c.after) : JSON.stringify(c.after)}`,
    )
    return `I filled in ${set.join('; ')}. Nothing is saved until the form is submitted.${more}`
  }
  if (Array.isArray(data) && data.length === 0 && stepwise) return `Nothing changed.${more}`
  if (stepwise && isObject(data) && typeof data.step === 'string' && Array.isArray(data.fields)) {
    const fields = data.fields.filter((f): f is string => typeof f === 'string').map((f) => fieldWords(f))
    const step = data.step.replace(/[-_]+/g, ' ')
    return fields.length > 0
      ? `Now on the ${step} step: what ${andList(fields)} should I fill in?`
      : `Now on the ${step} step.`
  }
  return undefined
}

/** Options of {@link OfflineProvider}. */
export interface OfflineProviderOptions {
  /**
   * The pause before each chunk of a reply after the first (ms), so a chat shows the reply as it streams.
   * Default 0: the chunks come at once.
   */
  chunkDelayMs?: number
  /** How many chunks a reply streams in (about; by words). Default 4. */
  chunks?: number
}

/** `text` cut at word boundaries into about `count` chunks (whitespace kept, so they add up to `text`). */
export function chunkText(text: string, count: number): string[] {
  const words = text.split(/(?<=\s)/)
  const per = Math.max(1, Math.ceil(words.length / Math.max(1, count)))
  const out: string[] = []
  for (let i = 0; i < words.length; i += per) out.push(words.slice(i, i + per).join(''))
  return out
}

/** The deterministic offline provider (the default). */
export class OfflineProvider implements Provider {
  readonly name = 'embedded'
  readonly #delay: number
  readonly #chunks: number

  constructor(options: OfflineProviderOptions = {}) {
    this.#delay = options.chunkDelayMs ?? 0
    this.#chunks = options.chunks ?? 4
  }

  /** Plans the next step of the turn (see the module comment); a reply streams in a few chunks. */
  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const event = plan(request)
    if (event.type !== 'text') {
      yield event
      return
    }
    for (const [i, chunk] of chunkText(event.delta, this.#chunks).entries()) {
      if (i > 0 && this.#delay > 0) await abortableSleep(this.#delay, request.signal)
      yield text(chunk)
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}

function callId(messages: readonly AgentMessage[]): string {
  const made = messages.reduce((n, m) => n + (m.role === 'assistant' ? m.toolCalls.length : 0), 0)
  return `embedded_${made + 1}`
}

const text = (delta: string): ProviderEvent => ({ type: 'text', delta })

/** A question the agent's previous turn ended with: the tool the answer is for and the fields it asked. */
interface OpenQuestion {
  tool: string
  fields: string[]
  stepwise: boolean
  /** The earlier user message the question was about (its values still count). */
  asked: string
}

/**
 * The previous turn's open question, read from its structure, not its wording: the turn ended with
 * the agent's text right after a `page_describe` that filled nothing (the fields it lacked, or a
 * stepwise form's first step), or right after a stepwise form moved to a step with fields to fill.
 */
function openQuestion(
  messages: readonly AgentMessage[],
  lastUser: number,
  entries: readonly ToolManifestSummary[],
  manifest: readonly ManifestLine[],
): OpenQuestion | undefined {
  let previous = -1
  for (let i = lastUser - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      previous = i
      break
    }
  }
  if (previous === -1) return undefined
  const said = (messages[previous] as { text: string }).text
  const turn = messages.slice(previous + 1, lastUser)
  const final = turn.at(-1)
  const result = turn.at(-2)
  if (final?.role !== 'assistant' || final.toolCalls.length > 0 || result?.role !== 'tool') return undefined
  const call = turn
    .flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []))
    .find((c) => c.id === result.toolCallId)
  const tool = isObject(call?.input) && typeof call.input.tool === 'string' ? call.input.tool : undefined
  const r = parseToolContent(result.content).result
  if (!call || !tool || r?.status !== 'ok' || !isObject(r.data)) return undefined
  const stepwise = (name: string) => entries.find((e) => e.name === name)?.mode === 'stepwise'
  if (call.name === 'page_describe') {
    const schema = r.data.inputSchema
    if (stepwise(tool)) {
      const description = manifest.find((t) => t.name === tool)?.description ?? ''
      return { tool, fields: firstStep(description, schema).fields, stepwise: true, asked: '' }
    }
    const missing = extractInput(said, schema, {
      toolWords: new Set(words(tool).map(stem)),
      readOnly: false,
    }).missing.filter((p) => !p.includes('.'))
    return missing.length > 0 ? { tool, fields: missing, stepwise: false, asked: said } : undefined
  }
  const fields = Array.isArray(r.data.fields) ? r.data.fields.filter((f) => typeof f === 'string') : []
  const fill = `${tool.slice(0, Math.max(0, tool.lastIndexOf('.')))}.fill`
  if (typeof r.data.step !== 'string' || fields.length === 0 || !stepwise(fill)) return undefined
  return { tool: fill, fields, stepwise: true, asked: '' }
}

/** A page call answered in this turn, with its result. */
interface Answered {
  tool: string
  input: unknown
  parsed: ReturnType<typeof parseToolContent>
  /** The input of the fill that filled this submit's form on the way (one request, two calls). */
  filled?: unknown
}

/** The page calls of `turn` that have an answer, in order. */
function answeredCalls(turn: readonly AgentMessage[]): Answered[] {
  const calls = turn.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []))
  const out: Answered[] = []
  for (const m of turn) {
    if (m.role !== 'tool') continue
    const call = calls.find((c) => c.id === m.toolCallId)
    if (call?.name !== 'page_call' || !isObject(call.input) || typeof call.input.tool !== 'string') continue
    out.push({ tool: call.input.tool, input: call.input.input, parsed: parseToolContent(m.content) })
  }
  return out
}

/** A refusal that means the page changed under the call: planned again once from the latest manifest. */
const changed = (a: Answered | undefined): boolean => {
  const r = a?.parsed.result
  return r?.status === 'refused' && (r.code === 'stale' || r.code === 'unknown_tool')
}

/** The entry a describe in `turn` returned for `tool` (title, description, hints). */
function describedIn(turn: readonly AgentMessage[], tool: string): Record<string, unknown> | undefined {
  const calls = turn.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []))
  let found: Record<string, unknown> | undefined
  for (const m of turn) {
    if (m.role !== 'tool') continue
    const call = calls.find((c) => c.id === m.toolCallId)
    if (call?.name !== 'page_describe' || !isObject(call.input) || call.input.tool !== tool) continue
    const r = parseToolContent(m.content).result
    if (r?.status === 'ok' && isObject(r.data)) found = r.data
  }
  return found
}

/** True when a part asks to go somewhere ("go to…", or its verb is a navigation verb: "open settings"). */
function wantsNavigation(part: string, manifest: readonly ManifestLine[]): boolean {
  return asksToNavigate(part) || requestGroup(part, vocabularyOf(manifest)) === 'navigate'
}

/** A navigation tool that opens any page of the app or site (not one thing's page). */
const GENERAL = /\b(?:another|any|other) page\b|\bsite\b/i

/** A tool that shows how to do things is for "show me how…" only: "create a challenge" is no tour. */
const isGuide = (tool: ManifestLine): boolean => SHOWS_HOW.test(tool.description)

/** True when `text` names `name` as a word of its own (not inside a longer name). */
function mentions(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + 1)) {
    const before = text.charAt(at - 1)
    const after = text.charAt(at + name.length)
    if (!/[\w.-]/.test(before) && !/\w/.test(after)) return true
  }
  return false
}

/**
 * The tool that fills the form `submit` sends: one whose description starts with "Fill" and whose
 * name the submit's description gives ("Takes no input: fill it first with …").
 */
function fillerOf(submit: ManifestLine, manifest: readonly ManifestLine[]): ManifestLine | undefined {
  if (!/\bfill\b/i.test(submit.description)) return undefined
  return manifest.find(
    (t) => t !== submit && words(t.description)[0] === 'fill' && mentions(submit.description, t.name),
  )
}

/** Verb groups whose requests must name something the tool is about ("switch to the dark theme"). */
const CHANGES = new Set(['create', 'update', 'delete'])

/**
 * True when a request fits a tool's texts by more than its verb: a change (create, update, delete)
 * that names things in lowercase words besides its values ("the dark theme"; "Chess Masters" is a
 * value) must name one the texts name. Lookups (their words are the query), navigations (their own
 * rules) and requests that name nothing else fit.
 */
function fitsThings(part: string, group: string | undefined, texts: readonly string[]): boolean {
  if (group === undefined || !CHANGES.has(group)) return true
  const lower = part.replace(/(?<=\s)[A-Z][\w-]*/g, ' ')
  const things = thingsOf(lower)
  if (things.length === 0) return true
  const known = new Set(texts.flatMap((t) => words(t)))
  // Typos are forgiven in longer words only: "chalenge" is a challenge, "dark" is no card.
  return things.some((w) => known.has(w.length > 5 ? correct(w, known) : w))
}

/** The texts of an input schema an agent reads to know what a tool is about: keys, enum values, titles, descriptions. */
function schemaTexts(schema: unknown, out: string[] = [], depth = 0): string[] {
  if (!isObject(schema) || depth > 4 || out.length > 200) return out
  for (const key of ['title', 'description'])
    if (typeof schema[key] === 'string') out.push((schema[key] as string).slice(0, MAX_TEXT))
  if (Array.isArray(schema.enum))
    for (const v of schema.enum.slice(0, 50)) if (typeof v === 'string') out.push(v.slice(0, 200))
  if (isObject(schema.properties))
    for (const [key, value] of Object.entries(schema.properties).slice(0, 50)) {
      out.push(key)
      schemaTexts(value, out, depth + 1)
    }
  if (isObject(schema.items)) schemaTexts(schema.items, out, depth + 1)
  return out
}

/** The values of a form's fill input, labelled for an answer (`title "Kites"`). */
function filledList(input: unknown): string[] {
  const fields = isObject(input) && isObject(input.values) ? input.values : input
  if (!isObject(fields)) return []
  return Object.entries(fields)
    .filter(([, v]) => typeof v === 'string' && v !== '')
    .map(([k, v]) => `${fieldWords(k)} ${quote(v as string)}`)
}

/**
 * One step of the embedded agent for `request`. Each text is read up to its maximum (`MAX_TEXT`
 * characters of a message, a title or a tool's description; `MAX_MANIFEST` of the rendered
 * manifest): longer text is cut before planning, so a step's work is bounded whatever is sent.
 */
export function plan(request: ProviderRequest): ProviderEvent {
  return planWithin(request, MAX_TEXT)
}

/**
 * {@link plan} with the texts cut at `limit` characters (the rendered manifest at `MAX_MANIFEST / MAX_TEXT` times `limit`). Internal:
 * the bench lifts the cut to show the planner's cost per character.
 */
export function planWithin(request: ProviderRequest, limit: number): ProviderEvent {
  const cut = (text: string, max = limit) => (text.length > max ? text.slice(0, max) : text)
  return planBounded({
    ...request,
    // The page's context (a user-role message of page data before the latest user message) is not the user's
    // words: left out, so the turns and the question the last one asked stay where they were.
    // A user's text: cut, and each run of white space made one space (no pattern meets long runs).
    messages: request.messages
      .filter((m) => !(m.role === 'user' && m.pageData))
      .map((m) => (m.role === 'user' ? { ...m, text: cut(m.text).replace(/\s+/g, ' ') } : m)),
    tools: request.tools.map((t) =>
      t.description.length > limit * MANIFEST_FACTOR
        ? { ...t, description: cut(t.description, limit * MANIFEST_FACTOR) }
        : t,
    ),
    ...(request.manifest
      ? {
          manifest: request.manifest.map((e) => ({
            ...e,
            description: cut(String(e.description ?? '')),
            ...(typeof e.title === 'string' ? { title: cut(e.title) } : {}),
          })),
        }
      : {}),
  })
}

/** How many times a message's maximum the rendered manifest may be. */
const MANIFEST_FACTOR = MAX_MANIFEST / MAX_TEXT

function planBounded(request: ProviderRequest): ProviderEvent {
  const { messages, tools } = request
  if (tools.length === 0) return text(followUpText(messages))
  let lastUser = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      lastUser = i
      break
    }
  }
  const userText = lastUser === -1 ? '' : (messages[lastUser] as { text: string }).text
  const turn = messages.slice(lastUser + 1)
  const manifest = parseManifest(tools.find((t) => t.name === 'page_call')?.description ?? '').map((t) =>
    t.description.length > MAX_TEXT ? { ...t, description: t.description.slice(0, MAX_TEXT) } : t,
  )
  const call = (name: string, input: unknown): ProviderEvent => ({
    type: 'tool_call',
    call: { id: callId(messages), name, input } satisfies ToolCall,
  })
  const entries = request.manifest ?? []
  /** The tool's user-facing title as the page wrote it; tool names are never shown. */
  const titled = (tool: string): string | undefined => {
    const title = entries.find((e) => e.name === tool)?.title ?? describedIn(turn, tool)?.title
    return typeof title === 'string' && title.trim() !== '' ? title.trim() : undefined
  }
  /** The title lowercased for use inside a sentence. */
  const titleOf = (tool: string) => titled(tool)?.toLowerCase()
  /** What the answer may say about a tool: from the manifest, else from this turn's describe (the page may have changed since). */
  const factsOf = (tool: string): ToolFacts => {
    const described = describedIn(turn, tool)
    const hints = isObject(described?.hints) ? described.hints : {}
    const line: ManifestLine | undefined =
      manifest.find((t) => t.name === tool) ??
      (typeof described?.description === 'string'
        ? {
            name: tool,
            description: described.description,
            hints: Object.keys(hints).filter((h) => hints[h] === true),
          }
        : undefined)
    const title = titled(tool)
    return {
      name: tool,
      title,
      description: line?.description ?? '',
      readOnly: line?.hints.includes('readOnly') ?? false,
      navigation: line ? isNavigation(line, title) : false,
      groups: line ? toolGroups(line, title) : new Set(),
    }
  }

  // A reply to the agent's own question is read as the answer, unless it is a request of its own
  // (a verb that picks a tool: "search for chess").
  const question = openQuestion(messages, lastUser, entries, manifest)
  const command = () => keywords(userText).some((w) => verbGroup(w) !== undefined)
  const open =
    question && !isHelpRequest(userText) && (!command() || chooseTool(userText, manifest) === undefined)
      ? question
      : undefined

  const parts = open ? [userText] : clauses(userText)
  const answered = answeredCalls(turn)
  const retrying = changed(answered.at(-1)) && !changed(answered.at(-2))
  // Calls refused because the page changed were planned again: they serve no part.
  const served = answered.filter((a, i) => !changed(a) || (i === answered.length - 1 && !retrying))
  // A fill followed by the submit it filled for serves one request: the submit, with what was filled.
  const units: Answered[] = []
  for (const a of served) {
    const previous = units.at(-1)
    const line = manifest.find((t) => t.name === a.tool)
    const filler = line ? fillerOf(line, manifest) : undefined
    if (previous && previous.filled === undefined && filler?.name === previous.tool)
      units[units.length - 1] = { ...a, filled: previous.input }
    else units.push(a)
  }
  const replyOf = (a: Answered): string => {
    const r = a.parsed.result
    const line = manifest.find((t) => t.name === a.tool)
    if (r?.status === 'ok' && line && SHOWS_HOW.test(line.description)) {
      return 'I started the guided tour in the page: follow its steps there.'
    }
    const stepwise = entries.find((e) => e.name === a.tool)?.mode === 'stepwise'
    const form = r?.status === 'ok' && !a.parsed.untrusted ? formText(r.data, stepwise) : undefined
    return form ?? outcomeText(factsOf(a.tool), a.input, a.parsed, filledList(a.filled))
  }
  const done = units.map(replyOf)
  /** The answer: what the served calls did, then `more`. */
  const answer = (...more: string[]): ProviderEvent =>
    text([...done, ...more].filter((t) => t !== '').join(' '))

  /**
   * The tool that serves `part` (the `index`th request of the message): the best match by words
   * among the page's tools; a guided tour only when the part asks to be shown how.
   */
  const pick = (part: string, index: number): ManifestLine | undefined => {
    const recent = index === 0 ? lastCalled(messages.slice(0, Math.max(0, lastUser))) : undefined
    const pool = manifest.filter((t) => (HOW_TO.test(part) || !isGuide(t)) && !rejects(part, t))
    return chooseTool(part, pool, recent, titled)?.tool
  }

  /**
   * True when this turn's describe of `tool` showed that it is about none of the things `part`
   * names: a verb alone ("switch", "update") never picks a tool whose name, title, description and
   * input schema say nothing of "the dark theme".
   */
  const rejects = (part: string, tool: ManifestLine): boolean => {
    const described = describedIn(turn, tool.name)
    if (described === undefined) return false
    return !fitsThings(part, requestGroup(part, vocabularyOf(manifest)), [
      tool.name,
      titled(tool.name) ?? '',
      tool.description,
      ...schemaTexts(described.inputSchema),
    ])
  }

  /** For a lookup this page cannot serve, the page it names and the navigation tool that opens it. */
  const lookedUp = (part: string): { navigator: ManifestLine; page: PageOffer } | undefined => {
    const group = requestGroup(part, vocabularyOf(manifest))
    for (const navigator of manifest.filter((t) => isNavigation(t, titled(t.name)))) {
      const page = lookedUpPage(part, group, pagesOf(navigator.description))
      if (page) return { navigator, page }
    }
    return undefined
  }

  /** True for a tool that opens pages: it has its own rules for what fits (declared pages). */
  const facts0 = (line: ManifestLine): boolean => isNavigation(line, titled(line.name))

  /** Plans `part` (the `index`th request of the message) from the current manifest. */
  const best = (part: string, index: number): ProviderEvent => {
    if (index === 0 && isHelpRequest(userText)) return answer(helpText(manifest, entries))
    const shows = HOW_TO.test(part) ? manifest.find((t) => SHOWS_HOW.test(t.description)) : undefined
    if (shows) return call('page_describe', { tool: shows.name })
    if (asksToNavigate(part)) {
      // Navigation words go to a tool that opens pages, never to one that creates ("the new challenge page").
      const navigators = manifest.filter((t) => isNavigation(t, titled(t.name)))
      const general = navigators.filter((t) => GENERAL.test(firstSentence(t.description)))
      const pool = general.length > 0 ? general : navigators
      const choice = chooseTool(part, pool, undefined, titled)?.tool ?? pool[0]
      if (choice) return call('page_describe', { tool: choice.name })
      return answer(cannotText(part, manifest, entries, index === 0))
    }
    const tool = pick(part, index)
    if (!tool) {
      // "list the challenges" elsewhere: the page that lists them is opened.
      const page = lookedUp(part)
      if (page) return call('page_describe', { tool: page.navigator.name })
      return answer(cannotText(part, manifest, entries, index === 0))
    }
    const choice = { tool }
    // A tool that asks for approval acts on one thing per call: "delete all" is answered, not run.
    const confirms = choice.tool.hints.some((h) => h === 'consequential' || h === 'destructive')
    if (confirms && ALL.test(part)) {
      const verb =
        keywords(part)
          .map((w) => correct(w, VERBS))
          .find((w) => verbGroup(w) !== undefined) ?? 'change'
      const thing = noun(choice.tool.name).replace(/s$/, '')
      return answer(
        `I can only ${verb} one ${thing} at a time, and each needs your approval, so I have not changed anything. Which ${thing} should I ${verb}?`,
      )
    }
    // A form's submit: its fill first, with the values the request names ("called Kites").
    return call('page_describe', { tool: (fillerOf(choice.tool, manifest) ?? choice.tool).name })
  }

  const last = turn.at(-1)
  if (last?.role !== 'tool') return open ? call('page_describe', { tool: open.tool }) : best(parts[0]!, 0)
  const asked = turn
    .flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []))
    .find((c) => c.id === last.toolCallId)
  const tool = isObject(asked?.input) && typeof asked.input.tool === 'string' ? asked.input.tool : '?'
  if (asked?.name === 'page_describe') {
    const part = parts[units.length] ?? userText
    const r = parseToolContent(last.content).result
    if (r?.status !== 'ok' || !isObject(r.data))
      return answer(
        `I could not look up ${titleOf(tool) ?? 'that tool'}: ${r ? failureText(r, false).replace(/^./, (c) => c.toLowerCase()) : 'no result.'}`,
      )
    const line0 = manifest.find((t) => t.name === tool)
    // Its schema shows it is about something else: the next tool that fits, else what can be done.
    if (line0 && !open && !facts0(line0) && rejects(part, line0)) return best(part, units.length)
    const hints = isObject(r.data.hints) ? r.data.hints : {}
    const toolWords = new Set(words(tool).map(stem))
    const extraction = extractInput(part, r.data.inputSchema, {
      toolWords,
      readOnly: hints.readOnly === true,
    })
    const line = manifest.find((t) => t.name === tool)
    const facts = factsOf(tool)
    // The fill of the form the request submits: the values it names outright, else the form as it is.
    const submit =
      line === undefined
        ? undefined
        : manifest.find((t) => fillerOf(t, manifest) === line && pick(part, units.length) === t)
    if (submit) {
      const named = extractInput(part, r.data.inputSchema, {
        toolWords,
        readOnly: false,
        explicitOnly: true,
      })
      return Object.keys(named.input).length > 0
        ? call('page_call', { tool, input: named.input })
        : call('page_call', { tool: submit.name, input: {} })
    }
    if (facts.navigation) {
      const going = wantsNavigation(part, manifest)
      const page = going ? undefined : lookedUp(part)?.page
      const where = destinationInput(
        part,
        facts.description,
        r.data.inputSchema,
        extraction.input,
        page?.page,
      )
      if (where.input) return call('page_call', { tool, input: where.input })
      // Not a page it lists ("open Chess Openings"): another tool that opens pages may know it.
      const other =
        !going || asksToNavigate(part)
          ? undefined
          : manifest.find(
              (t) =>
                t.name !== tool && isNavigation(t, titled(t.name)) && describedIn(turn, t.name) === undefined,
            )
      if (other) return call('page_describe', { tool: other.name })
      // A tool here whose words fit the place asked for beats a page there is not ("take me to the dark theme").
      const here =
        going && where.ask !== undefined && !PLACE_WORD.test(targetPhrase(part))
          ? chooseTool(
              targetPhrase(part),
              manifest.filter(
                (t) =>
                  !isNavigation(t, titled(t.name)) && !isGuide(t) && describedIn(turn, t.name) === undefined,
              ),
              undefined,
              titled,
            )
          : undefined
      if (here) return call('page_describe', { tool: here.tool.name })
      if (where.ask) return answer(where.ask)
    }
    const guide = line !== undefined && HOW_TO.test(part) && SHOWS_HOW.test(line.description)
    // A guide with nothing that fits what was asked: say what it can show instead of doing it.
    if (guide && extraction.missing.length > 0) {
      const choices = Object.values(extraction.choices)[0] ?? []
      const can = choices.map((c) => c.replace(/[-_]+/g, ' '))
      return answer(
        can.length > 0
          ? `I have no guided tour for that. I can show you how to ${orList(can)}.`
          : 'I have no guided tour for that.',
      )
    }
    const entry = entries.find((e) => e.name === tool)
    if (open?.tool === tool) {
      const schema = open.stepwise ? valuesSchema(r.data.inputSchema) : r.data.inputSchema
      const reply = answerValues(userText, schema, open.fields)
      if (Object.keys(reply).length > 0) {
        const earlier =
          open.asked === ''
            ? {}
            : extractInput(open.asked, r.data.inputSchema, {
                toolWords,
                readOnly: hints.readOnly === true,
              }).input
        return call('page_call', {
          tool,
          input: open.stepwise ? { values: reply } : { ...earlier, ...reply },
        })
      }
    }
    const values = extraction.input.values
    const empty = isObject(values) && Object.keys(values).length === 0
    if (entry?.mode === 'stepwise' && empty && extraction.missing.length === 0) {
      const title = titleOf(tool)
      return answer(
        firstStepText(line?.description ?? '', r.data.inputSchema, capital(`let's ${title ?? 'fill it in'}`)),
      )
    }
    if (extraction.missing.length > 0) {
      const title = titleOf(tool)
      return answer(missingText(extraction, title ? `To ${title}` : 'To do that'))
    }
    return call('page_call', { tool, input: extraction.input })
  }
  if (retrying) return best(parts[units.length] ?? userText, units.length)
  const index = units.length - 1
  const part = parts[index] ?? userText
  const rest = parts.slice(index + 1)
  const unit = units.at(-1)
  const r = unit?.parsed.result
  // The form was filled for the request's submit: now the submit.
  if (r?.status === 'ok' && unit?.filled === undefined) {
    const line = manifest.find((t) => t.name === unit?.tool)
    const submit = manifest.find((t) => line !== undefined && fillerOf(t, manifest) === line)
    if (submit && pick(part, index) === submit) return call('page_call', { tool: submit.name, input: {} })
  }
  if (r?.status === 'needs_confirmation' && rest.length > 0)
    return answer(`I did not ${andList(rest.map(echo))} yet: ask me again once you have answered it.`)
  if (r?.status !== 'ok') return answer(rest.length > 0 ? `So I did not ${andList(rest.map(echo))}.` : '')
  if (factsOf(tool).navigation) {
    // The page is changing: what is left is asked for again on the new page.
    const left = [...(wantsNavigation(part, manifest) || lookedUp(part) ? [] : [part]), ...rest]
    return answer(
      left.length > 0
        ? `I did not ${andList(left.map(echo))} yet: ask me again now that the page is open.`
        : '',
    )
  }
  if (rest.length > 0) return best(rest[0]!, index + 1)
  return answer()
}

/**
 * The input of a navigation tool for a part: only a page the tool declares (an enum value, a page
 * its description lists) or a path the message gives itself; never a path made of the user's words
 * ("switch to the dark theme" is no `/dark theme`). A lookup's page (`page`, see `lookedUpPage`)
 * comes first; then a path the message gives; then the declared page whose name and what the
 * description says it offers all the target's words fit ("the payment card page"), else the enum
 * value the words name. Nothing fits: the question to ask (the pages to choose from, or the path to
 * give); a tool whose input is no page or path ("the challenge's name") gets nothing from here.
 */
function destinationInput(
  part: string,
  description: string,
  schema: unknown,
  extracted: Record<string, unknown>,
  page?: string,
): { input?: Record<string, unknown>; ask?: string } {
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {}
  // The required input; with none required ("page or url"), the enum of pages, else the first input.
  const listed = isObject(schema) && Array.isArray(schema.required)
  const keys = (listed ? (schema.required as unknown[]) : Object.keys(properties)).filter(
    (k): k is string => typeof k === 'string' && isObject(properties[k]),
  )
  const enumKey = keys.find((k) => Array.isArray((properties[k] as Record<string, unknown>).enum))
  const key = (listed ? undefined : enumKey) ?? keys[0]
  if (key === undefined) return {}
  const property = properties[key] as Record<string, unknown>
  const about = typeof property.description === 'string' ? property.description : ''
  const target = targetWords(part)
  const pathKey = Object.keys(properties).find((k) => isObject(properties[k]) && ROUTE.test(k))
  if (Array.isArray(property.enum)) {
    const values = property.enum.filter((v): v is string => typeof v === 'string')
    if (page !== undefined && values.includes(page)) return { input: { [key]: page } }
    // A path the message gives goes to the tool's other, path-taking input when it has one.
    const given = pathIn(part)
    if (given && pathKey !== undefined && pathKey !== key) return { input: { [pathKey]: given } }
    // The page all the target's words fit wins over a value the words merely contain
    // ("the new challenge page" is the New challenge form's page, not the challenges list).
    const pages = [...pagesOf(description), ...pagesOf(about), ...values.map((v) => ({ page: v, about: '' }))]
    const found = matchPage(
      target,
      pages.filter((p) => values.includes(p.page)),
    )
    if (found) return { input: { [key]: found.page } }
    if (typeof extracted[key] === 'string' && values.includes(extracted[key])) {
      return { input: { [key]: extracted[key] } }
    }
    const noun = fieldWords(key)
    const choices = `You can choose ${orList(values)}.`
    return {
      ask:
        target.length > 0
          ? `There is no ${target.join(' ')} ${noun}. ${choices}`
          : `Which ${noun}? ${choices}`,
    }
  }
  if (page?.startsWith('/') && ROUTE.test(key)) return { input: { [key]: page } }
  const path = pathIn(part) ?? matchPage(target, pagesOf(description))?.page
  if (path && (path.startsWith('/') || !ROUTE.test(key))) return { input: { [key]: path } }
  if (!ROUTE.test(`${key} ${about}`)) return {}
  const example = examplePath(about) ?? examplePath(description)
  return {
    ask: `I do not know the path of ${targetPhrase(part)}. Tell me the path to open${example ? `, e.g. ${example}` : ''}.`,
  }
}

/** A word that asks for a place ("the new challenge page"), not a thing there ("the dark theme"). */
const PLACE_WORD = /\b(?:page|form|screen|tab|view|section|site)s?\b/i

/** An input that takes a path or URL. */
const ROUTE = /url|path|href|route|link/i
