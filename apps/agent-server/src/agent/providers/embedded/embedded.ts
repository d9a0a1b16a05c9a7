import type { ToolManifestSummary, ToolResult } from '@toolmark/core'
import { firstArray } from '../../lines.ts'
import type { AgentMessage, Provider, ProviderEvent, ProviderRequest, ToolCall } from '../../types.ts'
import { answerValues, extractInput } from './extract.ts'
import {
  chooseTool,
  correct,
  keywords,
  type ManifestLine,
  parseManifest,
  STOPWORDS,
  stem,
  VERBS,
  verbGroup,
  words,
} from './words.ts'

/*
 * The embedded default model: offline and deterministic. Each turn it reads the rendered manifest
 * in page_call's description and the user's message, picks a tool by matching words, fetches its
 * input schema with page_describe, fills the input from the message, calls page_call, and answers
 * in plain words. It knows no tool names: everything comes from the manifest and the schemas.
 * "Show me how to…" goes to a tool whose description says it gives a guided tour, with the tour
 * whose id the message names; "submit it" prefers the scope of the tool called last; a stepwise
 * form (`mode: 'stepwise'`) asked for with no values gets the first step's fields as a question.
 */

type Parsed = { result: ToolResult | undefined; untrusted: boolean }

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

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
const IRREGULAR: Readonly<Record<string, string>> = {
  set: 'set',
  put: 'put',
  send: 'sent',
  pay: 'paid',
  make: 'made',
}

/** Verbs that double their last consonant ("submit" → "submitted"): the stress is on the last syllable. */
const DOUBLING = new Set(
  'admit ban chat commit drop log omit permit pin plan prefer refer ship skip stop submit swap tag transfer'.split(
    ' ',
  ),
)

/** "Create challenge "X"" → "I created challenge "X"". Exported for its tests. */
export function pastTense(summary: string): string {
  const m = /^([A-Z][a-z]+)\s+(.*)$/.exec(summary)
  if (!m) return `“${summary}” went through`
  const verb = m[1]!.toLowerCase()
  const past =
    IRREGULAR[verb] ??
    (DOUBLING.has(verb)
      ? `${verb}${verb.at(-1)}ed`
      : verb.endsWith('e')
        ? `${verb}d`
        : /[^aeiou]y$/.test(verb)
          ? `${verb.slice(0, -1)}ied`
          : `${verb}ed`)
  return `I ${past} ${m[2]}`
}

function label(item: unknown): string {
  if (!isObject(item)) return String(item)
  for (const key of ['name', 'title', 'label', 'id'])
    if (typeof item[key] === 'string') return item[key] as string
  return JSON.stringify(item)
}

/** The plural noun a tool's name suggests ("orders.list" → "orders"). */
function noun(tool: string): string {
  const nouns = words(tool).filter((w) => verbGroup(w) === undefined && !STOPWORDS.has(w))
  return nouns[0] ? `${nouns[0]}s` : 'results'
}

function failure(result: ToolResult): string {
  switch (result.status) {
    case 'invalid':
      return `the page did not accept the input (${result.issues.map((i) => `${i.path || 'input'}: ${i.message}`).join('; ')})`
    case 'refused':
      return `the page refused: ${result.message}`
    case 'cancelled':
      return `the call was cancelled (${result.by})`
    case 'error':
      return `the page reported an error: ${result.message}`
    default:
      return `unexpected ${result.status}`
  }
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1)

/** The answer after a page_call outcome. */
function outcomeText(tool: string, parsed: Parsed, title: string | undefined): string {
  const r = parsed.result
  if (!r) return `I could not read the result${title ? ` of ${title}` : ''}.`
  if (r.status === 'needs_confirmation') {
    return `A confirmation is waiting in the page: ${r.summary}. Approve or reject it there.`
  }
  if (r.status !== 'ok') return `${capital(failure(r))}.`
  const prefix = parsed.untrusted
    ? 'The page returned this as data (untrusted page content, not instructions): '
    : ''
  const list = firstArray(r.data)
  if (list) {
    const n = list.length
    const what = noun(tool)
    if (n === 0) return `${prefix}I found no ${what}.`
    const shown = list.slice(0, 10).map(label).join(', ')
    return `${prefix}I found ${n} ${n === 1 ? what.replace(/s$/, '') : what}: ${shown}${n > 10 ? ', …' : ''}.`
  }
  if (r.data === undefined) return title ? `Done: ${title} completed.` : 'Done.'
  if (isObject(r.data)) {
    const fields = Object.entries(r.data)
      .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? quote(v) : String(v)}`)
    const details = fields.join('; ') || 'no details'
    if (prefix) return `${prefix}${details}.`
    return title ? `Done: ${title} (${details}).` : `Done: ${details}.`
  }
  const value = typeof r.data === 'string' ? quote(r.data) : JSON.stringify(r.data)
  if (prefix) return `${prefix}${value}.`
  return title ? `Done: ${title} (${value}).` : `Done: ${value}.`
}

/** The follow-up turn's answer: acknowledge the confirmed outcome (the last confirmId tool message). */
function followUpText(messages: readonly AgentMessage[]): string {
  const outcome = [...messages].reverse().find((m) => m.role === 'tool' && m.confirmId !== undefined)
  if (outcome?.role !== 'tool') return 'Noted.'
  let summary: string | undefined
  for (const m of messages) {
    if (m.role !== 'tool' || m === outcome) continue
    const r = parseToolContent(m.content).result
    if (r?.status === 'needs_confirmation' && r.confirmId === outcome.confirmId) summary = r.summary
  }
  const what = summary ? ` (${summary})` : ''
  const r = parseToolContent(outcome.content).result
  if (!r) return 'The confirmation finished, but I could not read its outcome.'
  if (r.status === 'ok')
    return summary ? `Done: ${pastTense(summary)}.` : 'Done: the action was approved and completed.'
  if (r.status === 'cancelled' && r.by === 'operator')
    return `Understood: you rejected it${what}, so nothing was changed.`
  if (r.status === 'refused' && r.code === 'confirmation_expired') {
    return `The confirmation expired or was already used${what}, so nothing was changed.`
  }
  return `It did not go through${what}: ${failure(r)}.`
}

/** The first sentence of a description (its one-line summary). */
function firstSentence(description: string): string {
  const m = /^(.*?[.!?])(?:\s|$)/.exec(description.trim())
  return (m ? m[1]! : description.trim()).trim()
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

function noToolText(
  message: string,
  manifest: readonly ManifestLine[],
  entries: readonly ToolManifestSummary[],
): string {
  if (manifest.length === 0) return 'The page offers no tools right now, so I cannot act on it.'
  const said = new Set(keywords(message))
  const related = manifest.filter((t) => words(`${t.name} ${t.description}`).some((w) => said.has(w)))
  return related.length > 0
    ? `I cannot do exactly that on this page. These come closest:\n${offerLines(related, entries)}`
    : `I cannot do that on this page. Here is what I can do:\n${offerLines(manifest, entries)}`
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

/** A field's name as words, as written ("startDate" → "start date", "starts" stays "starts"). */
const fieldWords = (field: string): string =>
  field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_.]+/g, ' ')
    .toLowerCase()

/** "a, b and c" */
const andList = (values: readonly string[]): string =>
  values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} and ${values.at(-1)}`

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

/** The deterministic offline provider (the default). */
export class EmbeddedProvider implements Provider {
  readonly name = 'embedded'

  /** Plans the next step of the turn; see the module comment. */
  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    yield plan(request)
  }
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

/** One step of the embedded agent for `request`. */
export function plan(request: ProviderRequest): ProviderEvent {
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
  const manifest = parseManifest(tools.find((t) => t.name === 'page_call')?.description ?? '')
  const call = (name: string, input: unknown): ProviderEvent => ({
    type: 'tool_call',
    call: { id: callId(messages), name, input } satisfies ToolCall,
  })
  const entries = request.manifest ?? []
  /** The tool's user-facing title, lowercased for use inside a sentence; tool names are never shown. */
  const titleOf = (tool: string) =>
    entries
      .find((e) => e.name === tool)
      ?.title?.trim()
      .toLowerCase() || undefined
  const describeBest = (): ProviderEvent => {
    if (isHelpRequest(userText)) return text(helpText(manifest, entries))
    const shows = HOW_TO.test(userText) ? manifest.find((t) => SHOWS_HOW.test(t.description)) : undefined
    if (shows) return call('page_describe', { tool: shows.name })
    const choice = chooseTool(userText, manifest, lastCalled(messages.slice(0, Math.max(0, lastUser))))
    if (!choice) return text(noToolText(userText, manifest, entries))
    // A tool that asks for approval acts on one thing per call: "delete all" is answered, not run.
    const confirms = choice.tool.hints.some((h) => h === 'consequential' || h === 'destructive')
    if (confirms && ALL.test(userText)) {
      const verb =
        keywords(userText)
          .map((w) => correct(w, VERBS))
          .find((w) => verbGroup(w) !== undefined) ?? 'change'
      const thing = noun(choice.tool.name).replace(/s$/, '')
      return text(
        `I can only ${verb} one ${thing} at a time, and each needs your approval, so I have not changed anything. Which ${thing} should I ${verb}?`,
      )
    }
    return call('page_describe', { tool: choice.tool.name })
  }

  // A reply to the agent's own question is read as the answer, unless it is a request of its own
  // (a verb that picks a tool: "search for chess").
  const question = openQuestion(messages, lastUser, entries, manifest)
  const command = keywords(userText).some((w) => verbGroup(w) !== undefined)
  const open =
    question && !isHelpRequest(userText) && (!command || chooseTool(userText, manifest) === undefined)
      ? question
      : undefined
  const last = turn.at(-1)
  if (last?.role !== 'tool') return open ? call('page_describe', { tool: open.tool }) : describeBest()
  const asked = turn
    .flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []))
    .find((c) => c.id === last.toolCallId)
  const tool = isObject(asked?.input) && typeof asked.input.tool === 'string' ? asked.input.tool : '?'
  const parsed = parseToolContent(last.content)
  if (asked?.name === 'page_describe') {
    const r = parsed.result
    if (r?.status !== 'ok' || !isObject(r.data))
      return text(`I could not look up ${titleOf(tool) ?? 'that tool'}: ${r ? failure(r) : 'no result'}.`)
    const hints = isObject(r.data.hints) ? r.data.hints : {}
    const toolWords = new Set(words(tool).map(stem))
    const extraction = extractInput(userText, r.data.inputSchema, {
      toolWords,
      readOnly: hints.readOnly === true,
    })
    const line = manifest.find((t) => t.name === tool)
    const guide = line !== undefined && HOW_TO.test(userText) && SHOWS_HOW.test(line.description)
    // A guide with nothing that fits what was asked: say what it can show instead of doing it.
    if (guide && extraction.missing.length > 0) {
      const choices = Object.values(extraction.choices)[0] ?? []
      const can = choices.map((c) => c.replace(/[-_]+/g, ' '))
      return text(
        can.length > 0
          ? `I have no guided tour for that. I can show you how to ${orList(can)}.`
          : 'I have no guided tour for that.',
      )
    }
    const entry = entries.find((e) => e.name === tool)
    if (open?.tool === tool) {
      const schema = open.stepwise ? valuesSchema(r.data.inputSchema) : r.data.inputSchema
      const answer = answerValues(userText, schema, open.fields)
      if (Object.keys(answer).length > 0) {
        const earlier =
          open.asked === ''
            ? {}
            : extractInput(open.asked, r.data.inputSchema, {
                toolWords,
                readOnly: hints.readOnly === true,
              }).input
        return call('page_call', {
          tool,
          input: open.stepwise ? { values: answer } : { ...earlier, ...answer },
        })
      }
    }
    const values = extraction.input.values
    const empty = isObject(values) && Object.keys(values).length === 0
    if (entry?.mode === 'stepwise' && empty && extraction.missing.length === 0) {
      const title = titleOf(tool)
      return text(
        firstStepText(line?.description ?? '', r.data.inputSchema, capital(`let's ${title ?? 'fill it in'}`)),
      )
    }
    if (extraction.missing.length > 0) {
      const title = titleOf(tool)
      return text(missingText(extraction, title ? `To ${title}` : 'To do that'))
    }
    return call('page_call', { tool, input: extraction.input })
  }
  const r = parsed.result
  const attempts = turn.filter(
    (m) => m.role === 'assistant' && m.toolCalls.some((c) => c.name === 'page_call'),
  ).length
  if (r?.status === 'refused' && (r.code === 'stale' || r.code === 'unknown_tool') && attempts < 2) {
    return describeBest() // the page changed: plan again from the latest manifest
  }
  const guide = manifest.find((t) => t.name === tool)
  if (r?.status === 'ok' && guide && SHOWS_HOW.test(guide.description)) {
    return text('I started the guided tour in the page: follow its steps there.')
  }
  const stepwise = entries.find((e) => e.name === tool)?.mode === 'stepwise'
  const form = r?.status === 'ok' && !parsed.untrusted ? formText(r.data, stepwise) : undefined
  return text(form ?? outcomeText(tool, parsed, titleOf(tool)))
}
