import {
  isCount,
  isFields,
  isObject,
  isText,
  isToken,
  isToolName,
  typeProblem,
  unknownKey,
} from './checks.ts'

/*
 * Relay → page messages, checked strictly: no unknown property at the top level (nor in `meta`).
 * The page imports only this file of the validator, so the relay's checks stay out of its bundle.
 */

const PAGE_TO_RELAY = ['hello', 'manifest', 'result', 'confirm', 'context', 'prompts'] as const
const REASONS = ['declined', 'cancelled', 'expired', 'unavailable']

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
      const extra = unknownKey(value, ['type', 'id', 'tool', 'input', 'rev', 'meta', 'client', 'elicit'])
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
      if (value.client !== undefined) {
        const client = value.client
        if (!isObject(client)) return 'call: client must be an object'
        const key = unknownKey(client, ['name', 'version'])
        if (key !== undefined) return `call: unknown client property ${key}`
        if (!isText(client.name, 1, 256)) return 'call: client.name must be a string of 1 to 256 characters'
        if (client.version !== undefined && !isText(client.version, 0, 256))
          return 'call: client.version must be a string of at most 256 characters'
      }
      if (value.elicit !== undefined && value.elicit !== true) return 'call: elicit must be true when present'
      return undefined
    }
    case 'confirmed': {
      const extra = unknownKey(value, ['type', 'confirmId', 'approved', 'input', 'reason'])
      if (extra !== undefined) return `confirmed: unknown property ${extra}`
      if (!isToken(value.confirmId)) return 'confirmed: confirmId must match ^[A-Za-z0-9_-]{1,256}$'
      if (typeof value.approved !== 'boolean') return 'confirmed: approved must be a boolean'
      if (value.input !== undefined && !isFields(value.input))
        return 'confirmed: input must map at most 64 field names to strings, numbers or booleans'
      if (value.reason !== undefined && !REASONS.includes(value.reason as string))
        return 'confirmed: reason must be declined, cancelled, expired or unavailable'
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
