import { correct, keywords, STOPWORDS, VERB_GROUPS, VERBS, verbGroup, words } from './words.ts'

/*
 * What a message asks for, read without any tool name: its parts ("open the settings page and turn
 * on dark mode" is two requests), whether a part asks to go somewhere, and which page of the
 * navigation tool's description offers what a part asks for.
 */

/** Verbs (besides the verb groups') that start a new request after "and", "then" or a comma. */
const COMMANDS = new Set([
  ...VERBS,
  'submit',
  'fill',
  'plan',
  'tell',
  'give',
  'take',
  'bring',
  'call',
  'save',
  'send',
  'pay',
  'close',
])

/**
 * The requests in a message, in order: split at ";", ", then", " then ", " and " or "," when the
 * next word is a verb ("search for chess and delete Marathon Training"), never inside quotes
 * ("name "Chess and more"") nor before a value ("name and category").
 */
export function clauses(message: string): string[] {
  const out: string[] = []
  let start = 0
  // Quotes before each separator are counted once, as the scan goes (not from the start each time).
  let quotes = 0
  let counted = 0
  const word = /\s*(?:(?:also|please)\s+)?([A-Za-z]+)/y
  for (const m of message.matchAll(/\s*(?:;|,?\s+(?:and\s+)?then\s+|,?\s+and\s+|,\s*)/g)) {
    for (; counted < m.index; counted++) if (message.charCodeAt(counted) === 34) quotes++
    if (quotes % 2 === 1) continue
    word.lastIndex = m.index + m[0].length
    const next = word.exec(message)
    if (!next || !COMMANDS.has(next[1]!.toLowerCase())) continue
    out.push(message.slice(start, m.index))
    start = m.index + m[0].length
  }
  out.push(message.slice(start))
  const parts = out.map((p) => p.trim()).filter((p) => p !== '')
  return parts.length > 0 ? parts : [message]
}

const POLITE =
  /^(?:(?:please|ok|okay|now|so|and|also)[\s,]+)*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?(?:i(?:'d| would)? (?:want|need|like|wish) to\s+)?/i

/** A question rather than a request ("what's on…", "where can I…"): repeated back as "answer that". */
const ASKS =
  /^(?:what|what's|where|which|who|whom|whose|how|why|when|is|are|do|does|did|can|could|will|would|should|am)\b/i

/**
 * A part that asks to go somewhere: "go to…", "take me to…", "bring me back to…", or "open / show
 * me / visit … page (form, screen, tab)".
 */
const NAVIGATION =
  /^(?:(?:go|navigate|head|jump|move|return|get)(?:\s+back)?\s+to\b|(?:take|bring) (?:me|us)(?:\s+back)?\s+to\b|(?:open|show(?: me| us)?|visit|display|bring up|pull up)\b(?=.*\b(?:page|form|screen|tab|view|section)s?\b))/i

/** True when `part` asks to go to a page (see {@link NAVIGATION}). */
export function asksToNavigate(part: string): boolean {
  return NAVIGATION.test(part.trim().replace(POLITE, ''))
}

/** Words that name a place in general, not which one. */
const PLACE = new Set(['page', 'form', 'screen', 'tab', 'view', 'section', 'site', 'back', 'list'])

/** The words of a navigation request that say where to go ("the new challenge page" → new, challenge). */
export function targetWords(part: string): string[] {
  const verbs = new Set([...VERB_GROUPS.navigate!, 'show', 'take', 'bring', 'display', 'pull', 'head'])
  return keywords(part).filter((w) => !verbs.has(w) && !PLACE.has(w))
}

/** The place a navigation request names, as written ("go to the new challenge page" → "the new challenge page"). */
export function targetPhrase(part: string): string {
  const rest = part
    .trim()
    .replace(POLITE, '')
    .replace(NAVIGATION, '')
    .replace(/[.!?]+$/, '')
    .trim()
  return rest === '' ? 'that page' : rest
}

/** One page a navigation tool can open, with what its description says the page offers. */
export interface PageOffer {
  /** The page as the tool takes it: an enum value ("settings") or a path ("/settings"). */
  page: string
  /** What the page offers, as the description says it ("account settings: update the payment card"). */
  about: string
}

/**
 * The pages a navigation tool's text lists with what they offer: `"settings" (account settings)`,
 * `/settings (the color theme)`, or `"settings" for the payment card` (a schema's enum description).
 * Paths given as an example ("e.g. /challenges/3") are not pages.
 */
export function pagesOf(text: string): PageOffer[] {
  const out: PageOffer[] = []
  const add = (page: string, about: string) => {
    if (!out.some((p) => p.page === page)) out.push({ page, about: about.trim() })
  }
  for (const m of text.matchAll(/"([^"]+)"\s*\(([^)]*)\)/g)) add(m[1]!, m[2]!)
  for (const m of text.matchAll(/(?<!e\.g\.\s?|example:?\s?)(?<![\w/])(\/[\w\-./]*)\s*\(([^)]*)\)/g))
    add(m[1]!, m[2]!)
  for (const m of text.matchAll(/"([^"]+)"\s+for\s+(?:the\s+)?([^,".;]+)/g)) add(m[1]!, m[2]!)
  // "pass page, one of home, settings;": names only, nothing said about what they offer.
  for (const m of text.matchAll(/\bone of:?\s+([\w-]+(?:,\s*[\w-]+)*)/g))
    for (const page of m[1]!.split(/,\s*/)) add(page, '')
  return out
}

/** The page among `pages` that all the target's words fit (its name or what it offers), if one does. */
export function matchPage(target: readonly string[], pages: readonly PageOffer[]): PageOffer | undefined {
  if (target.length === 0) return undefined
  let best: { page: PageOffer; extra: number } | undefined
  for (const page of pages) {
    const own = new Set(words(page.page))
    const known = new Set([...own, ...keywords(page.about)])
    if (!target.every((w) => known.has(correct(w, known)))) continue
    const extra = [...own].filter((w) => !target.includes(w)).length
    if (!best || extra < best.extra) best = { page, extra }
  }
  return best?.page
}

/** A path the message gives itself ("open /settings"). */
export function pathIn(part: string): string | undefined {
  return /(?:^|\s)(\/[\w\-./?=&#%]*)/.exec(part)?.[1]?.replace(/[.,!?]+$/, '')
}

/** The first example path a text gives ("e.g. /challenges/3"). */
export function examplePath(text: string): string | undefined {
  return /(?:^|[\s(])(\/[\w\-./]+)/.exec(text)?.[1]?.replace(/[.,]+$/, '')
}

/** The values a request names (quoted, "called X", "for/of X"): they say which thing, not where it is. */
const VALUES =
  /"[^"]*"|“[^”]*”|\b(?:called|named|titled)\s+.+?(?=$|[.,!?;:]|\s(?:with|and|that|which)\s)|\b(?:of|for|about|matching|containing)\s+[^.,!?;:]+/gi

/**
 * The page of `pages` that offers what `part` asks for: what the page offers must name the
 * request's verb (or a verb of the same group: "search" fits "the challenges list"), and, when the
 * request names things besides its values ("my payment card"), at least one of them. A search's
 * words are all its query. The page with the most such words wins (ties: the first).
 */
export function offeringPage(
  part: string,
  group: string | undefined,
  pages: readonly PageOffer[],
): PageOffer | undefined {
  const family = group === undefined ? [] : [...VERB_GROUPS[group]!]
  const lookup = group === 'search' || group === 'read'
  if (lookup) family.push(...VERB_GROUPS.search!, ...VERB_GROUPS.read!)
  const things = group === 'search' ? [] : thingsOf(part)
  let best: { page: PageOffer; score: number } | undefined
  for (const page of pages) {
    const about = new Set([...keywords(page.about), ...words(page.page)])
    if (group !== undefined && !family.some((w) => about.has(w))) continue
    // Typos are forgiven in longer words only: "theme" is not "them".
    const named = things.filter((w) => about.has(w.length > 5 ? correct(w, about) : w)).length
    if (things.length > 0 && named === 0) continue
    if (!best || named > best.score) best = { page, score: named }
  }
  return best?.page
}

/** The things a request names besides its verbs and its values ("list the challenges" → challenge). */
export function thingsOf(part: string): string[] {
  return keywords(part.replace(VALUES, ' ')).filter(
    (w) => verbGroup(correct(w, VERBS)) === undefined && !PLACE.has(w) && !STOPWORDS.has(w),
  )
}

/**
 * The page a lookup asks to see when this page cannot answer it: "list the challenges" or "what
 * challenges are there?" names the challenges page itself (all the things it names are the page's
 * name), and that page offers the lookup. A request with a value ("search for chess") is not a page.
 */
export function lookedUpPage(
  part: string,
  group: string | undefined,
  pages: readonly PageOffer[],
): PageOffer | undefined {
  if (group !== 'search' && group !== 'read') return undefined
  const things = thingsOf(part)
  if (things.length === 0) return undefined
  const named = pages.filter((p) => {
    const own = new Set(words(p.page))
    return things.every((w) => own.has(correct(w, own)))
  })
  return offeringPage(part, group, named)
}

/** Words after which a value may be a secret: an echo stops there. */
const SECRET = /\b(?:password|passcode|passphrase|pin|secret|token|key|cvc|cvv|code)\b/i

/**
 * A part as the agent repeats it back: without "please" or "can you", cut before a colon, a
 * digit (never repeat a card number), after a word like "password" (never repeat a secret) and
 * before a trailing "to …" / "with …", in the user's own words seen from the agent ("my card" →
 * "your card"); "answer that" for a question, "do that" when nothing short is left.
 */
export function echo(part: string): string {
  let s = part.trim().replace(POLITE, '')
  if (ASKS.test(s)) return 'answer that'
  s = s.split(/[:;?!]|\d/)[0]!
  const secret = SECRET.exec(s)
  if (secret) s = s.slice(0, secret.index + secret[0].length)
  const cut = /\s(?:to|with|using|by)\s/.exec(s)
  if (cut && s.slice(0, cut.index).trim().split(/\s+/).length >= 2) s = s.slice(0, cut.index)
  s = s
    .replace(/[\s.,]+$/, '')
    .replace(/\bmy\b/gi, 'your')
    .replace(/\bmine\b/gi, 'yours')
    .replace(/\bme\b/gi, 'you')
    .replace(/\bI\b/g, 'you')
  if (s === '' || s.length > 80) return 'do that'
  return /^[A-Z][a-z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s
}
