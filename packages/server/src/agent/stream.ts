import { CARD_NUMBER_SOURCE, CODE_SOURCE, MIN_SECRET_LENGTH, PASSWORD_SOURCE } from '@toolmark/protocol'
import { MAX_PROVIDER_TEXT } from '../shared/bounds.ts'
import { maskText, scrub, secretForms } from '../shared/redact.ts'
import type { ProviderEvent, ToolCall } from './types.ts'

/** At most one text delta per conversation this often while text streams (ms). */
export const DELTA_INTERVAL_MS = 50

const PATTERNS = [CARD_NUMBER_SOURCE, CODE_SOURCE, PASSWORD_SOURCE].map((source) => new RegExp(source, 'gi'))
const CODE_AT_END = new RegExp(CODE_SOURCE, 'gi')
const PASSWORD_AT_END = new RegExp(PASSWORD_SOURCE, 'gi')
/**
 * Where the run of digits (with spaces or dashes among them) that ends `text` starts, or -1: a card number may
 * still be growing there. One pass back from the end (a regular expression here would scan a long run of digits
 * again from each of its digits).
 */
function digitsAtEnd(text: string): number {
  let start = -1
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i)
    if (c >= 0x30 && c <= 0x39) start = i
    else if (c !== 0x20 && c !== 0x2d) break
  }
  return start
}

/** `text` without the digits it ends with. */
function withoutFinalDigits(text: string): string {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) >= 0x30 && text.charCodeAt(end - 1) <= 0x39) end--
  return text.slice(0, end)
}

/**
 * Where the undecided end of `raw` starts: the text from there on could still become (or be the start of)
 * something the masking changes, so a secret split across two deltas is masked whole before any of it is sent.
 * That is a trailing run of digits, a security-code or password keyword still waiting for its value, and the
 * start of a known secret or held word.
 */
function undecided(raw: string, words: readonly string[], from: number): number {
  let at = raw.length
  const tail = raw.slice(from)
  const digits = digitsAtEnd(tail)
  if (digits >= 0) at = from + digits
  // A keyword whose value may come next matches once a value is appended.
  for (const [pattern, value] of [
    [CODE_AT_END, '000'],
    [PASSWORD_AT_END, 'x'],
  ] as const) {
    // A value already begun is completed, not lengthened (a code has at most 6 digits).
    const probe = withoutFinalDigits(tail) + value
    pattern.lastIndex = 0
    for (const m of probe.matchAll(pattern))
      if (m.index + m[0].length === probe.length) at = Math.min(at, from + m.index)
  }
  for (const word of words) {
    for (let k = Math.min(word.length - 1, raw.length); k > 0; k--) {
      if (raw.endsWith(word.slice(0, k))) {
        at = Math.min(at, raw.length - k)
        break
      }
    }
  }
  return at
}

/**
 * How far before the last cut the next one looks again: longer than a card number with its separators, a
 * security code with its keyword, or a password assignment.
 */
const LOOK_BEHIND = 64

/** Text the masking could change: a digit, or a fragment of a security-code or password keyword. */
const RISKY = /\d|pass|cv|cs|cid|pin|code|verif/i

/** A place where text may be cut: right after white space or sentence punctuation. */
const BOUNDARY = /[\s.!?。！？]/

/**
 * The masking of assistant text, the same for the streamed text and the stored message: values known to be
 * secret cut out, then the heuristics (card numbers, security codes, passwords), then what they left of a
 * known secret.
 */
export function maskAssistantText(text: string, secrets: readonly string[]): string {
  return scrub(maskText(scrub(text, secrets)), secretForms(secrets))
}

/**
 * How much of `raw` may be masked and sent now (`from`: how much was cut before): up to a word boundary before
 * its undecided end, never inside or at the start of anything the masking could still change (a card number, a
 * code, a password, a known secret, or a word that may turn out to be one), never past the provider's text limit.
 */
export function safeCut(
  raw: string,
  secrets: readonly string[],
  held: readonly string[] = [],
  from = 0,
): number {
  // Only the text from a little before the last cut is looked at again: what came before it is decided.
  const window = Math.max(0, from - LOOK_BEHIND)
  let cut = Math.min(undecided(raw, [...secrets, ...held], window), MAX_PROVIDER_TEXT)
  const spans: Array<[number, number]> = []
  const tail = raw.slice(window)
  for (const pattern of PATTERNS) {
    pattern.lastIndex = 0
    for (const m of tail.matchAll(pattern)) spans.push([window + m.index, window + m.index + m[0].length])
  }
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue
    for (let at = raw.indexOf(secret, window); at >= 0; at = raw.indexOf(secret, at + 1))
      spans.push([at, at + secret.length])
  }
  for (const word of held) {
    const at = raw.indexOf(word)
    if (at >= 0) spans.push([at, raw.length])
  }
  for (let moved = true; moved && cut > from; ) {
    moved = false
    while (cut > from && !BOUNDARY.test(raw[cut - 1]!)) cut--
    for (const [start, end] of spans) {
      if (start < cut && (end > cut || end >= raw.length - 1)) {
        cut = start
        moved = true
      }
    }
  }
  return Math.max(cut, from)
}

/** Options of {@link TextStream}. */
export interface TextStreamOptions {
  /** Publishes one masked delta. */
  publish: (delta: string) => void
  /** The values known to be secret so far in the turn (read at every flush). */
  secrets: () => readonly string[]
  /**
   * Words of the user's message that may turn out to be secret once the model calls a tool with them: the text
   * stops streaming before the first of them (the stored message, masked with the call's values, ends it).
   */
  held?: readonly string[]
  /** Default {@link DELTA_INTERVAL_MS}. */
  intervalMs?: number
}

/**
 * One timer for all the streams of one interval: a stream that got text before its interval passed waits for the
 * clock's next tick, and each tick flushes every waiting stream whose last delta is an interval old. So a
 * process streaming many replies wakes once per interval, not once per stream, and the streams keep step.
 */
class FlushClock {
  readonly #interval: number
  readonly #waiting = new Set<() => boolean>()
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(interval: number) {
    this.#interval = interval
  }

  /** `flush` runs at a coming tick, and again at the next one while it returns false (not due yet). */
  add(flush: () => boolean, dueIn: number): void {
    this.#waiting.add(flush)
    this.#timer ??= setTimeout(this.#tick, Math.max(0, dueIn))
  }

  /** `flush` waits no more (its stream ended); the timer stops when nobody waits. */
  delete(flush: () => boolean): void {
    this.#waiting.delete(flush)
    if (this.#waiting.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
  }

  readonly #tick = (): void => {
    this.#timer = undefined
    try {
      for (const flush of this.#waiting) if (flush()) this.#waiting.delete(flush)
    } finally {
      // A stream whose publishing threw does not stop the clock for the others.
      if (this.#waiting.size > 0) this.#timer ??= setTimeout(this.#tick, this.#interval)
    }
  }
}

/** The shared clock of each interval in use. */
const clocks = new Map<number, FlushClock>()

/**
 * One assistant message as it streams: collects the provider's deltas and publishes the masked text in
 * coalesced deltas (at most one per `intervalMs`), holding back the last word and a tail that could still be
 * the start of a secret. Each new piece is masked with the text shortly before it; the final message carries
 * the whole text, masked as a whole, and wins over the deltas. The streams of one interval share one timer.
 */
export class TextStream {
  readonly #o: TextStreamOptions
  readonly #interval: number
  readonly #clock: FlushClock
  #raw = ''
  /** How much of the provider's text is masked and sent. */
  #cut = 0
  /** Every cut so far (where a masking may start over). */
  readonly #cuts: number[] = [0]
  #sent = ''
  #stopped = false
  /** When the last flush ran (ms since the epoch; never: long ago). */
  #last = Number.NEGATIVE_INFINITY
  /** Waiting for the clock's tick. */
  #waiting = false

  constructor(options: TextStreamOptions) {
    this.#o = options
    this.#interval = options.intervalMs ?? DELTA_INTERVAL_MS
    let clock = clocks.get(this.#interval)
    if (!clock) {
      clock = new FlushClock(this.#interval)
      clocks.set(this.#interval, clock)
    }
    this.#clock = clock
  }

  /** The masked text sent so far. */
  get sent(): string {
    return this.#sent
  }

  /** Adds the provider's next delta; flushes now when the last flush is `intervalMs` old, else soon. */
  push(delta: string): void {
    if (this.#stopped) return
    this.#raw += delta
    if (this.#waiting) return
    const wait = this.#last + this.#interval - Date.now()
    if (wait <= 0) this.#flush()
    else {
      this.#waiting = true
      this.#clock.add(this.#due, wait)
    }
  }

  /** Stops streaming (the message is complete, or the turn failed): nothing more is published. */
  end(): void {
    this.#stopped = true
    if (this.#waiting) this.#clock.delete(this.#due)
    this.#waiting = false
  }

  /**
   * The clock's tick: flushes when the last flush is an interval old (a millisecond early counts, as timers
   * and the wall clock round apart); false when not due yet.
   */
  readonly #due = (): boolean => {
    if (this.#stopped) return true
    if (Date.now() - this.#last < this.#interval - 1) return false
    this.#waiting = false
    this.#flush()
    return true
  }

  #flush(): void {
    if (this.#stopped) return
    this.#last = Date.now()
    const secrets = this.#o.secrets()
    const raw = this.#raw
    if (
      secrets.length === 0 &&
      !this.#o.held?.length &&
      !RISKY.test(raw.slice(Math.max(0, this.#cut - LOOK_BEHIND)))
    ) {
      // No digit, no keyword and no known secret near the new text: the masking changes none of it, so it is
      // sent as it came, up to its last word boundary.
      let cut = Math.min(raw.length, MAX_PROVIDER_TEXT)
      while (cut > this.#cut && !BOUNDARY.test(raw[cut - 1]!)) cut--
      if (cut > this.#cut) this.#send(cut, raw.slice(this.#cut, cut))
      return
    }
    const cut = safeCut(raw, secrets, this.#o.held, this.#cut)
    if (cut <= this.#cut) return
    // The new piece is masked together with what came a little before it (from an earlier cut), so a keyword
    // sent before still masks the code after it; what it adds to the earlier masking is the delta.
    let base = 0
    for (let i = this.#cuts.length - 1; i >= 0; i--) {
      if (this.#cuts[i]! <= this.#cut - LOOK_BEHIND) {
        base = this.#cuts[i]!
        break
      }
    }
    const before = maskAssistantText(this.#raw.slice(base, this.#cut), secrets)
    const after = maskAssistantText(this.#raw.slice(base, cut), secrets)
    if (!after.startsWith(before)) {
      // The masking of the longer text disagrees with what was sent: nothing more is (the message ends it).
      this.end()
      return
    }
    this.#send(cut, after.slice(before.length))
  }

  #send(cut: number, delta: string): void {
    // Nothing is sent before the message has words: a reply of white space is never shown.
    if (this.#sent.trim() === '' && delta.trim() === '') return
    this.#cut = cut
    this.#cuts.push(cut)
    this.#sent += delta
    this.#o.publish(delta)
  }
}

/**
 * One idle stream kept for the life of the process: V8 keeps the hidden class of TextStream objects only while one
 * of them lives. Without it, a garbage collection while no reply streams (between turns) drops that class, and the
 * next turn throws away the agent loop's optimized code, which reads streams, and compiles it again: in
 * bench/streaming.ts that recompiling cost more CPU than the streaming itself.
 */
const KEEP_SHAPE = new TextStream({ publish: () => {}, secrets: () => [] })
KEEP_SHAPE.end()

/**
 * The words of the user's text that could be a value the model passes at a sensitive path: those with a digit
 * or a symbol in them (a code, a number, a password like `hunter2!`), at least {@link MIN_SECRET_LENGTH} long.
 */
export function heldWords(text: string): string[] {
  const out = new Set<string>()
  for (const token of text.split(/\s+/)) {
    const word = token.replace(/^[("'“‘[]+|[)"'”’\].,;:!?]+$/g, '')
    if (word.length >= MIN_SECRET_LENGTH && /[^\p{L}'’-]/u.test(word)) out.add(word)
  }
  return [...out]
}

/**
 * Reads one model reply: its text and its tool calls, the text pushed to `stream` as it comes. The stream ends
 * with the reply, also when the provider fails (the error is thrown on). Kept out of the agent's long turn
 * function, so what V8 compiles again when a stream's code changes is this small function, not the turn.
 */
export async function readReply(
  events: AsyncIterable<ProviderEvent>,
  stream: TextStream | undefined,
): Promise<{ text: string; calls: ToolCall[] }> {
  let text = ''
  const calls: ToolCall[] = []
  try {
    for await (const event of events) {
      if (event.type === 'text') {
        text += event.delta
        stream?.push(event.delta)
      } else calls.push(event.call)
    }
  } finally {
    stream?.end()
  }
  return { text, calls }
}
