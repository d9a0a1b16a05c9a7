// "@toolmark/otel": one OpenTelemetry span per tool call. The OpenTelemetry API is an optional
// peer that the app passes in: this module imports only its types, so it ships no dependency.
import type * as OtelApi from '@opentelemetry/api'
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api'
import type { CallMeta, ConfirmMode, ToolmarkConsumer, ToolmarkEvents, ToolResult } from '@toolmark/core'

/** The parts of `@opentelemetry/api` this consumer uses: pass `import * as api from '@opentelemetry/api'`. */
export type OtelApiLike = Pick<typeof OtelApi, 'trace' | 'context' | 'SpanKind' | 'SpanStatusCode'> &
  Partial<Pick<typeof OtelApi, 'createTraceState'>>

export interface OtelOptions {
  /** `@opentelemetry/api` (`import * as api from '@opentelemetry/api'`), version `^1.3.0`. */
  api: OtelApiLike
  /** Default `api.trace.getTracer('@toolmark/core')`. */
  tracer?: Tracer
  /** Record the input as `gen_ai.tool.call.arguments` (JSON, `'[redacted]'` at sensitive paths). Default false. */
  recordInputs?: boolean
  /** Record `ok` data as `gen_ai.tool.call.result` (JSON, `'[redacted]'` at sensitive paths). Default false. */
  recordResults?: boolean
}

/** An open call span and, while one is open, its inline confirmation's start time. */
interface Open {
  span: Span
  confirmAt?: number
  /** How many `toolmark.progress` events the span has. */
  progressEvents?: number
}

const MAX_DEFERRED = 100
/** Most `toolmark.progress` events one call's span gets. */
const MAX_PROGRESS_EVENTS = 32

/**
 * One span per tool call, `execute_tool {tool}` (kind INTERNAL), with the GenAI attributes
 * `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, plus `toolmark.caller`,
 * `toolmark.status` and `toolmark.refused.code`. Confirmations are span events with their wait time;
 * refused, invalid, cancelled and error results set the span status to ERROR with `error.type`.
 * Inputs and results are recorded only when opted in, redacted at the tool's sensitive paths. A call
 * relayed with a W3C `traceparent` in its meta (desktop MCP) continues that trace.
 */
export function otel(options: OtelOptions): ToolmarkConsumer {
  const { api } = options
  if (!api?.trace || !api.context) throw new TypeError("otel() needs { api } from '@opentelemetry/api'")
  const recordInputs = options.recordInputs === true
  const recordResults = options.recordResults === true
  return (host) => {
    const tracer = options.tracer ?? api.trace.getTracer('@toolmark/core')
    const open = new Map<string, Open>()
    /** Deferred confirmations by confirmId: when they were requested, for the wait time. */
    const deferred = new Map<string, number>()

    const parentOf = (meta: CallMeta | undefined): Context => {
      const active = api.context.active()
      const parsed = parseTraceparent(meta?.traceparent)
      if (!parsed) return active
      const tracestate = meta?.tracestate
      const traceState =
        typeof tracestate === 'string' && api.createTraceState ? api.createTraceState(tracestate) : undefined
      return api.trace.setSpanContext(active, {
        ...parsed,
        isRemote: true,
        ...(traceState ? { traceState } : {}),
      })
    }

    const start = (
      event: { callId: string; tool: string; caller: string },
      meta: CallMeta | undefined,
    ): Span => {
      const attributes: Attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': event.tool,
        'gen_ai.tool.call.id': event.callId,
        'gen_ai.tool.type': 'function',
        'toolmark.caller': event.caller,
      }
      return tracer.startSpan(
        `execute_tool ${event.tool}`,
        { kind: api.SpanKind.INTERNAL, attributes },
        parentOf(meta),
      )
    }

    const finish = (span: Span, tool: string, result: ToolResult): void => {
      span.setAttribute('toolmark.status', result.status)
      switch (result.status) {
        case 'ok':
          if (recordResults && result.data !== undefined) {
            const json = safeJson(host.redact(tool, result.data))
            if (json !== undefined) span.setAttribute('gen_ai.tool.call.result', json)
          }
          break
        case 'needs_confirmation':
          break
        case 'refused':
          span.setAttribute('toolmark.refused.code', result.code)
          fail(span, result.code, result.message)
          break
        case 'cancelled':
          span.setAttribute('toolmark.cancelled.by', result.by)
          fail(span, 'cancelled', `cancelled by ${result.by}`)
          break
        case 'invalid':
          fail(span, 'invalid', 'invalid input')
          break
        default:
          // `error` results carry only generic messages ("Tool failed"); details stay page-side.
          fail(span, 'tool_error', result.message)
      }
      span.end()
    }
    const fail = (span: Span, type: string, message: string): void => {
      span.setAttribute('error.type', type)
      span.setStatus({ code: api.SpanStatusCode.ERROR, message })
    }

    const onCall = (event: ToolmarkEvents['call'], meta: CallMeta | undefined): void => {
      const span = start(event, meta)
      // Sampled out, or no SDK registered (the API's no-op tracer): nothing more to record.
      if (!span.isRecording()) return span.end()
      if (recordInputs) {
        // The call event's input is already redacted at the tool's sensitive paths.
        const json = safeJson(event.input)
        if (json !== undefined) span.setAttribute('gen_ai.tool.call.arguments', json)
      }
      open.set(event.callId, { span })
    }
    const onResult = (event: ToolmarkEvents['result']): void => {
      const o = open.get(event.callId)
      if (!o) return // a deferred approval's run: recorded when its confirmation settles
      open.delete(event.callId)
      finish(o.span, event.tool, event.result)
    }
    const onConfirm = (event: ToolmarkEvents['confirm'], meta: CallMeta | undefined): void => {
      if (event.phase === 'requested') {
        const o = open.get(event.callId)
        if (o) {
          o.confirmAt = now()
          o.span.addEvent('toolmark.confirmation.requested', { 'toolmark.confirmation.mode': event.mode })
        }
        if (event.mode === 'deferred') {
          deferred.set(event.request.confirmId, now())
          if (deferred.size > MAX_DEFERRED) deferred.delete(deferred.keys().next().value as string)
        }
        return
      }
      const settled = settledAttributes(event.mode, event.outcome)
      if (event.mode === 'inline') {
        const o = open.get(event.callId)
        if (!o) return
        settled['toolmark.confirmation.wait_ms'] = o.confirmAt === undefined ? 0 : now() - o.confirmAt
        o.span.addEvent(`toolmark.confirmation.${event.outcome}`, settled)
        return
      }
      // A deferred confirmation settles after its call span ended: its own span, caller `human`.
      const at = deferred.get(event.confirmId)
      deferred.delete(event.confirmId)
      const span = start({ callId: event.callId, tool: event.tool, caller: 'human' }, meta)
      settled['toolmark.confirmation.wait_ms'] = at === undefined ? 0 : now() - at
      span.addEvent(`toolmark.confirmation.${event.outcome}`, settled)
      finish(span, event.tool, event.result ?? { status: 'cancelled', by: 'operator' })
    }

    const onProgress = (event: ToolmarkEvents['progress']): void => {
      const o = open.get(event.callId)
      // At most MAX_PROGRESS_EVENTS per span: a tool reporting in a tight loop cannot flood the trace.
      if (!o || (o.progressEvents ?? 0) >= MAX_PROGRESS_EVENTS) return
      o.progressEvents = (o.progressEvents ?? 0) + 1
      const attributes: Record<string, number | string> = {}
      if (event.fraction !== undefined) attributes['toolmark.progress.fraction'] = event.fraction
      // The message is the app's text about the user's data: recorded only where inputs are.
      if (recordInputs && event.message !== undefined) attributes['toolmark.progress.message'] = event.message
      o.span.addEvent('toolmark.progress', attributes)
    }

    const off = host.observe({ call: onCall, result: onResult, confirm: onConfirm, progress: onProgress })
    return () => {
      off()
      for (const { span } of open.values()) {
        span.setAttribute('toolmark.status', 'detached')
        span.end()
      }
      open.clear()
    }
  }
}

function settledAttributes(mode: ConfirmMode, outcome: string): Attributes {
  return { 'toolmark.confirmation.mode': mode, 'toolmark.confirmation.outcome': outcome }
}

const now = (): number => (typeof performance === 'undefined' ? Date.now() : performance.now())

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** A W3C `traceparent` (`00-<trace id>-<parent id>-<flags>`), or undefined when malformed. */
export function parseTraceparent(
  value: unknown,
): { traceId: string; spanId: string; traceFlags: number } | undefined {
  if (typeof value !== 'string') return undefined
  const m = TRACEPARENT.exec(value.trim())
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined
  return { traceId: m[2]!, spanId: m[3]!, traceFlags: Number.parseInt(m[4]!, 16) & 1 }
}
