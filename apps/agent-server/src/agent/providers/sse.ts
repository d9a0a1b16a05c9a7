/** One server-sent event. */
export interface SseEvent {
  event: string | undefined
  data: string
}

/**
 * Parses a `text/event-stream` body into events (`event:` and multi-line `data:` fields; comments
 * and `id:`/`retry:` ignored; CRLF or LF line ends). Events without data are skipped.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  let event: string | undefined
  let data: string[] = []
  const flush = (): SseEvent | undefined => {
    const out = data.length > 0 ? { event, data: data.join('\n') } : undefined
    event = undefined
    data = []
    return out
  }
  const reader = body.getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
      let newline = buffer.search(/\r\n|\n|\r/)
      while (newline !== -1) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1))
        if (line === '') {
          const e = flush()
          if (e) yield e
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':')
          const field = colon === -1 ? line : line.slice(0, colon)
          const raw = colon === -1 ? '' : line.slice(colon + 1)
          const value = raw.startsWith(' ') ? raw.slice(1) : raw
          if (field === 'event') event = value
          else if (field === 'data') data.push(value)
        }
        newline = buffer.search(/\r\n|\n|\r/)
      }
      if (done) break
    }
    if (buffer !== '' && buffer.startsWith('data:')) data.push(buffer.slice(5).trimStart())
    const e = flush()
    if (e) yield e
  } finally {
    reader.releaseLock()
  }
}

/** Reads at most `limit` characters of an error response body (for error messages). */
export async function errorBody(response: Response, limit = 500): Promise<string> {
  try {
    return (await response.text()).slice(0, limit)
  } catch {
    return ''
  }
}

/** A JSON object's property as an object (`{}` when absent or not an object). */
export function field(value: unknown, key: string): Record<string, unknown> {
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
}

/** A JSON object's property as a string (`''` when absent or not a string). */
export function text(value: unknown, key: string): string {
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
  return typeof v === 'string' ? v : ''
}

/** A JSON object's property as a number (`0` when absent or not a finite number). */
export function num(value: unknown, key: string): number {
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
  return typeof v === 'number' && Number.isFinite(v) ? v : 0
}
