import { isCount, isObject, isToken, isToolName, typeProblem, unknownKey } from './checks.ts'

/*
 * Relay → page messages, checked strictly: no unknown property at the top level (nor in `meta`).
 * The page imports only this file of the validator, so the relay's checks stay out of its bundle.
 */

const PAGE_TO_RELAY = ['hello', 'manifest', 'result'] as const

/** Why `value` is not a relay → page message, or undefined when it is one. */
export function toPageProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'message must be an object'
  switch (value.type) {
    case 'pairing': {
      const extra = unknownKey(value, ['type', 'code', 'expiresAt'])
      if (extra !== undefined) return `pairing: unknown property ${extra}`
      if (typeof value.code !== 'string' || !/^[0-9]{4}-[0-9]{4}$/.test(value.code))
        return 'pairing: code must be 8 digits as 1234-5678'
      if (!isCount(value.expiresAt)) return 'pairing: expiresAt must be an integer >= 0 (epoch ms)'
      return undefined
    }
    case 'paired': {
      const extra = unknownKey(value, ['type', 'tab', 'resume'])
      if (extra !== undefined) return `paired: unknown property ${extra}`
      if (typeof value.tab !== 'string' || !/^t[0-9]{1,15}$/.test(value.tab))
        return 'paired: tab must match ^t[0-9]{1,15}$'
      if (value.resume !== undefined && !isToken(value.resume))
        return 'paired: resume must match ^[A-Za-z0-9_-]{1,256}$'
      return undefined
    }
    case 'call': {
      const extra = unknownKey(value, ['type', 'id', 'tool', 'input', 'rev', 'meta'])
      if (extra !== undefined) return `call: unknown property ${extra}`
      if (!isToken(value.id)) return 'call: id must match ^[A-Za-z0-9_-]{1,256}$'
      if (!isToolName(value.tool)) return 'call: tool must match ^[A-Za-z0-9_.-]{1,128}$'
      if (!isObject(value.input)) return 'call: input must be an object'
      if (value.rev !== undefined && !isCount(value.rev)) return 'call: rev must be an integer >= 0'
      if (value.meta !== undefined) {
        const meta = value.meta
        if (!isObject(meta)) return 'call: meta must be an object'
        const key = unknownKey(meta, ['traceparent', 'tracestate'])
        if (key !== undefined) return `call: unknown meta property ${key}`
        if (
          (meta.traceparent !== undefined && typeof meta.traceparent !== 'string') ||
          (meta.tracestate !== undefined && typeof meta.tracestate !== 'string')
        )
          return 'call: meta.traceparent and meta.tracestate must be strings'
      }
      return undefined
    }
    case 'cancel': {
      const extra = unknownKey(value, ['type', 'id'])
      if (extra !== undefined) return `cancel: unknown property ${extra}`
      return isToken(value.id) ? undefined : 'cancel: id must match ^[A-Za-z0-9_-]{1,256}$'
    }
    case 'error': {
      const extra = unknownKey(value, ['type', 'message'])
      if (extra !== undefined) return `error: unknown property ${extra}`
      return typeof value.message === 'string' ? undefined : 'error: message must be a string'
    }
    default:
      return typeProblem(value.type, PAGE_TO_RELAY, 'page→relay')
  }
}
