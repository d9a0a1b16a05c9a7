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
  update: ['update', 'change', 'edit', 'set', 'modify', 'replace', 'rename'],
  navigate: ['navigate', 'open', 'go', 'visit', 'switch', 'goto'],
  read: ['read', 'view', 'get', 'fetch', 'see', 'display'],
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

/** A tool chosen for a message, with the score that chose it. */
export interface ToolChoice {
  tool: ManifestLine
  score: number
}

/**
 * Scores every tool against the user's message: each user keyword counts once per tool, 3 when it
 * (or a verb of its group) is in the tool's name, 1 when in its description; a verb whose group
 * leans towards one of the tool's hints adds 1. The best tool with a score ≥ 3 wins (ties: the
 * first in manifest order).
 */
export function chooseTool(message: string, tools: readonly ManifestLine[]): ToolChoice | undefined {
  const user = [...new Set(keywords(message))]
  let best: ToolChoice | undefined
  for (const tool of tools) {
    const nameWords = new Set(words(tool.name))
    const descriptionWords = new Set(words(tool.description))
    let score = 0
    for (const word of user) {
      const group = verbGroup(word)
      const family = group ? VERB_GROUPS[group]! : [word]
      const inName = nameWords.has(word) || family.some((w) => nameWords.has(w))
      const inDescription = descriptionWords.has(word) || family.some((w) => descriptionWords.has(w))
      score += inName ? 3 : inDescription ? 1 : 0
      if (group && tool.hints.includes(GROUP_HINT[group]!) && (inName || inDescription)) score += 1
    }
    if (score >= 3 && (!best || score > best.score)) best = { tool, score }
  }
  return best
}
