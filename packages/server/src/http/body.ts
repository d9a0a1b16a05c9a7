import { MAX_DEPTH } from '@toolmark/protocol'
import { nestedDeeperThan } from '../shared/json-depth.ts'
/**
 * How much more than its limit a refused body is still read (and dropped) before the 413 is sent, at most: a
 * client still sending its body when the server stops reading gets a reset connection instead of the answer.
 * A body declared (`Content-Length`) longer than the limit plus this is refused without reading any of it.
 */
export const DRAIN_BYTES = 1_048_576

/** One decoder for every body: decoding without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder()

/**
 * The request body as UTF-8 text, or undefined once it is over `max` bytes. Reading stops at the limit: the
 * bytes past it are dropped as they come (up to {@link DRAIN_BYTES} more, so the client reads the answer), then
 * the body is cancelled. A declared length over the limit is refused before anything is read. Memory and work
 * stay within `max` whatever the client sends or declares.
 */
export async function readLimited(request: Request, max: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > max + DRAIN_BYTES) {
    await request.body?.cancel().catch(() => {})
    return undefined
  }
  // A declared length within the limit bounds the body: the HTTP server reads no byte past it. Reading it
  // whole takes the server's fast path (no stream reader, and on Node no Web Request built).
  if (declared <= max) {
    const bytes = await request.arrayBuffer()
    return bytes.byteLength > max ? undefined : UTF8.decode(bytes)
  }
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      chunks.length = 0
      if (size > max + DRAIN_BYTES) {
        await reader.cancel().catch(() => {})
        return undefined
      }
      continue
    }
    chunks.push(value)
  }
  if (size > max) return undefined
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.byteLength
  }
  return UTF8.decode(bytes)
}

/** What {@link readJson} found: the parsed body, or why there is none. */
export type JsonBody =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'too_large' | 'too_deep' | 'not_json' }

/** The refusal of a body nested deeper than the protocol's 64 levels (`too_deep`), the same on every route. */
export const TOO_DEEP = {
  code: 'too_deep',
  message: `Request body nested deeper than ${MAX_DEPTH} levels`,
} as const

/**
 * The request body parsed as JSON, read with {@link readLimited} (at most `max` bytes); a body nested deeper than
 * 64 levels is refused (`too_deep`) before it is parsed.
 */
export async function readJson(request: Request, max: number): Promise<JsonBody> {
  const text = await readLimited(request, max)
  if (text === undefined) return { ok: false, reason: 'too_large' }
  if (nestedDeeperThan(text, MAX_DEPTH)) return { ok: false, reason: 'too_deep' }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false, reason: 'not_json' }
  }
}
