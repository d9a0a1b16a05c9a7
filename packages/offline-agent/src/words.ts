/*
 * Word matching for the embedded agent: tokenizing, verb synonyms and scoring a user's message
 * against the rendered manifest. Nothing here knows any tool name.
 */

/** Words that carry no meaning for matching. */
export const STOPWORDS = new Set(
  (
    'a an the my me our your this that these those it its to of for in on at by with and or please ' +
    'can could would you i we us let lets some any all is are be was called named titled then now just ' +
    'what which who whose there here up'
  ).split(' '),
)

/** Verb groups: a user word of a group matches any word of the same group in a tool's text. */
export const VERB_GROUPS: Readonly<Record<string, readonly string[]>> = {
  search: ['search', 'find', 'list', 'look', 'lookup', 'query', 'browse', 'filter', 'show'],
  create: ['create', 'add', 'new', 'make', 'start'],
  delete: ['delete', 'remove', 'erase', 'drop', 'destroy'],
  update: [
    'update',
    'change',
    'edit',
    'set',
    'modify',
    'replace',
    'rename',
    'turn',
    'enable',
    'disable',
    'toggle',
    'switch',
  ],
  navigate: ['navigate', 'open', 'go', 'visit', 'goto'],
  read: ['read', 'view', 'get', 'fetch', 'see', 'display', 'describe'],
}

/** Which hint a verb group leans towards (a small tie-breaker). */
const GROUP_HINT: Readonly<Record<string, string>> = {
  search: 'readOnly',
  read: 'readOnly',
  navigate: 'readOnly',
  create: 'consequential',
  update: 'consequential',
  delete: 'destructive',
}

const GROUP_OF = new Map<string, string>()
for (const [group, words] of Object.entries(VERB_GROUPS)) for (const w of words) GROUP_OF.set(w, group)

/** The verb group of a (stemmed) word, if it is a known verb. */
export function verbGroup(word: string): string | undefined {
  return GROUP_OF.get(word)
}

/** A crude stem: lowercase, drop a plural `s` (not `ss`), so "challenges" matches "challenge". */
export function stem(word: string): string {
  const w = word.toLowerCase()
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1)
  return w
}

/** Splits text (and camelCase, dotted, snake or kebab names) into stemmed words, stopwords kept. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '' && !/^\d+$/.test(w))
    .map(stem)
}

/** {@link words} without stopwords. */
export function keywords(text: string): string[] {
  return words(text).filter((w) => !STOPWORDS.has(w))
}

/** One tool as read back from `page_call`'s rendered manifest. */
export interface ManifestLine {
  name: string
  description: string
  hints: string[]
}

/** Reads the tool lines (`- name — description [hints: …]`) out of `page_call`'s description. */
export function parseManifest(description: string): ManifestLine[] {
  const lines: ManifestLine[] = []
  for (const line of description.split('\n')) {
    const m = /^- ([A-Za-z0-9_.-]+)(?: — (.*))?$/.exec(line)
    if (!m) continue
    let rest = m[2] ?? ''
    let hints: string[] = []
    const h = /\s*\[hints: ([^\]]*)\]$/.exec(rest)
    if (h) {
      rest = rest.slice(0, h.index)
      hints = h[1] === 'none' ? [] : h[1]!.split(', ')
    }
    lines.push({ name: m[1]!, description: rest.trim(), hints })
  }
  return lines
}

/** The first sentence of a description (its one-line summary). */
export function firstSentence(description: string): string {
  const m = /^(.*?[.!?])(?:\s|$)/.exec(description.trim())
  return (m ? m[1]! : description.trim()).trim()
}

/**
 * A tool that opens pages: its description (or title) starts with a navigation verb ("Open…",
 * "Go to…", "Navigate…") and its first sentence is about a page or the site.
 */
export function isNavigation(tool: ManifestLine, title?: string): boolean {
  const lead = (text: string | undefined) => {
    const first = text ? words(text)[0] : undefined
    return first !== undefined && verbGroup(first) === 'navigate'
  }
  return (
    (lead(tool.description) || lead(title)) && /\b(?:page|site)s?\b/i.test(firstSentence(tool.description))
  )
}

/**
 * The verb groups a tool says it does: those of the verbs in its name, its title and the first
 * sentence of its description ("Fill the form to: create a challenge…" creates; "Rename (change the
 * name of)…" updates; `settings.setTheme` sets). Later sentences ("Sets only the fields given…") are
 * usage notes and do not count. A navigation tool navigates, and does what its sentence says it
 * opens a page for ("…, to see or rename it"), not what the pages it lists offer (text in
 * parentheses or after a colon).
 */
export function toolGroups(tool: ManifestLine, title?: string): Set<string> {
  const out = new Set<string>()
  let sentence = firstSentence(tool.description)
  let name = tool.name
  if (isNavigation(tool, title)) {
    out.add('navigate')
    sentence = sentence.replace(/\([^)]*\)/g, ' ').split(':')[0]!
    title = undefined
    name = ''
  }
  for (const w of words(`${name} ${title ?? ''} ${sentence}`)) {
    const group = verbGroup(w)
    if (group) out.add(group)
  }
  return out
}

/** Groups that ask for the same kind of thing: listing, searching and reading are all lookups. */
const LOOKUP = new Set(['search', 'read'])

/**
 * True when a tool whose verbs are `groups` can serve a request whose verb is in `group`: the tool
 * names no verb, or names that group, or both are lookups. "List the challenges" never goes to a
 * form's fill, "rename it" never to a create.
 */
export function serves(groups: ReadonlySet<string>, group: string | undefined): boolean {
  if (group === undefined || groups.size === 0 || groups.has(group)) return true
  return LOOKUP.has(group) && [...groups].some((g) => LOOKUP.has(g))
}

/** The verb group of a request: that of its first word that is a known verb (typos corrected against `vocabulary`). */
export function requestGroup(message: string, vocabulary: readonly string[]): string | undefined {
  for (const w of keywords(message)) {
    const group = verbGroup(correct(w, vocabulary))
    if (group) return group
  }
  // A question with no verb of its own ("what challenges are there?") asks to read.
  return QUESTION.test(message) ? 'read' : undefined
}

/** A question that asks what there is ("what…", "which…", "how many…", "are there…"). */
const QUESTION = /^\s*(?:what|which|how many|are there|is there|do i have)\b/i

/** A tool chosen for a message, with the score that chose it. */
export interface ToolChoice {
  tool: ManifestLine
  score: number
}

/**
 * Scores every tool against the user's message (each word first corrected for small typos, see
 * {@link correct}): each user keyword counts once per tool, 3 when it
 * (or a verb of its group) is in the tool's name, 1 when in its description; a verb whose group
 * leans towards one of the tool's hints adds 1. A tool in the same scope as `recent` (the tool
 * the conversation used last, so "submit it" after a fill submits that form) adds 1. The best tool
 * with a score ≥ 3 wins (ties: the first in manifest order). A tool the request's verb does not
 * fit (see {@link serves}) is never chosen; one whose summary names that verb adds 2.
 */
export function chooseTool(
  message: string,
  tools: readonly ManifestLine[],
  recent?: string,
  titles: (name: string) => string | undefined = () => undefined,
): ToolChoice | undefined {
  const vocabulary = vocabularyOf(tools)
  const scopeOf = (name: string) => name.slice(0, Math.max(0, name.lastIndexOf('.')))
  const recentScope = recent === undefined ? '' : scopeOf(recent)
  const user = [...new Set(keywords(message).map((w) => correct(w, vocabulary)))]
  const asked = requestGroup(message, vocabulary)
  let best: ToolChoice | undefined
  for (const tool of tools) {
    const groups = toolGroups(tool, titles(tool.name))
    if (!serves(groups, asked)) continue
    const nameWords = new Set(words(tool.name))
    const descriptionWords = new Set(words(tool.description))
    // A tool whose own summary names the request's verb ("Set the color theme…" for "turn on…") adds 2.
    let score = asked !== undefined && groups.has(asked) ? 2 : 0
    for (const word of user) {
      const group = verbGroup(word)
      const family = group ? VERB_GROUPS[group]! : [word]
      const inName = nameWords.has(word) || family.some((w) => nameWords.has(w))
      const inDescription = descriptionWords.has(word) || family.some((w) => descriptionWords.has(w))
      score += inName ? 3 : inDescription ? 1 : 0
      if (group && tool.hints.includes(GROUP_HINT[group]!) && (inName || inDescription)) score += 1
    }
    // "Submit it" after a fill: among tools that match, the one next to the last tool used wins.
    if (score >= 3 && recentScope !== '' && scopeOf(tool.name) === recentScope) score += 1
    if (score >= 3 && (!best || score > best.score)) best = { tool, score }
  }
  return best
}

/**
 * Edit distance with adjacent transpositions (optimal string alignment): "serch"→"search" is 1. With `max`,
 * any distance over it is reported as `max + 1` as soon as it is certain (the work stops there).
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    let rowMin = d[i]![0]!
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
      if (v < rowMin) rowMin = v
    }
    // Every later row is at least this row's smallest value minus one transposition's saving: none.
    if (rowMin > max && i > 1 && d[i - 1]!.reduce((m, x) => Math.min(m, x), rowMin) > max) return max + 1
  }
  const distance = d[a.length]![b.length]!
  return distance > max ? max + 1 : distance
}

/**
 * Corrections already made, per vocabulary object (a message repeats its words, and one plan asks for the same
 * ones often). The planner builds each vocabulary once and does not change it afterwards.
 */
const corrections = new WeakMap<object, Map<string, string>>()
/** The most corrections kept per vocabulary. */
const MAX_CORRECTIONS = 4096

/** How many typos a word of this length may carry: none up to 3 letters, 1 up to 6, else 2. */
const allowedTypos = (length: number): number => (length <= 3 ? 0 : length <= 6 ? 1 : 2)

/**
 * The word of `vocabulary` that `word` is a small typo of ("delte" → "delete", "challange" →
 * "challenge"), or `word` itself when it is in the vocabulary, a number, or nothing is close enough
 * (ties: the first in vocabulary order).
 */
export function correct(word: string, vocabulary: Iterable<string>): string {
  const w = word.toLowerCase()
  const limit = allowedTypos(w.length)
  if (limit === 0 || /\d/.test(w)) return w
  const known = typeof vocabulary === 'object' ? corrections.get(vocabulary) : undefined
  const cached = known?.get(w)
  if (cached !== undefined) return cached
  let best = w
  let bestDistance = limit + 1
  for (const candidate of vocabulary) {
    if (candidate === w) {
      best = w
      break
    }
    if (Math.abs(candidate.length - w.length) > limit || allowedTypos(candidate.length) === 0) continue
    const dist = editDistance(w, candidate, bestDistance - 1)
    if (dist < bestDistance) {
      best = candidate
      bestDistance = dist
    }
  }
  if (typeof vocabulary !== 'object') return best
  const memo = known ?? new Map<string, string>()
  if (!known) corrections.set(vocabulary, memo)
  if (memo.size < MAX_CORRECTIONS) memo.set(w, best)
  return best
}

/** Every verb of {@link VERB_GROUPS}, the vocabulary typos in verbs are corrected against. */
export const VERBS: readonly string[] = Object.values(VERB_GROUPS).flat()

/** The words a message's words are corrected against: the verbs and every word of the tools' names and descriptions. */
export function vocabularyOf(tools: readonly ManifestLine[]): string[] {
  const out = new Set<string>(VERBS)
  for (const t of tools)
    for (const w of words(`${t.name} ${t.description}`)) if (!STOPWORDS.has(w)) out.add(w)
  return [...out]
}
