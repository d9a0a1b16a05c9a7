import { newId } from './ids.ts'
import type { ContextTable } from './registry/context.ts'
import { REDACTED, redactedValue } from './tool/redact.ts'
import type {
  Caller,
  CallMeta,
  CallObserver,
  CallOptions,
  ConsumerRunOptions,
  ConsumerStatus,
  ContextSnapshot,
  Manifest,
  ToolDefinition,
  ToolManifest,
  ToolmarkEventName,
  ToolmarkEvents,
  ToolResult,
} from './types.ts'

/** What the consumer API reads of the registry (declared here so this module imports no facade). */
export interface ConsumerSource {
  manifest(options: { caller: Caller; detail: 'full' }): Manifest<ToolManifest>
  subscribe(listener: (rev: number) => void): () => void
  call(name: string, input: unknown, options: CallOptions): Promise<ToolResult>
}

/** The registry's events, as observers subscribe to them. */
export interface ConsumerEvents {
  on<E extends ToolmarkEventName>(event: E, listener: (payload: ToolmarkEvents[E]) => void): () => void
}

/** The meta of calls started through `run`, kept until each call resolves. */
export type CallMetas = Map<string, CallMeta>

/** The registered tools, as `redact` reads their sensitive paths. */
export type ToolsBySensitivePaths = ReadonlyMap<
  string,
  { readonly def: Pick<ToolDefinition, 'sensitivePaths'> }
>

/** `ConsumerHost.watch`: the caller's manifest now, then once per published revision. */
export function watch(
  base: Pick<ConsumerSource, 'manifest' | 'subscribe'>,
  options: { caller: Caller; detail?: 'summary' | 'full' },
  listener: (manifest: never) => void,
): () => void {
  const read = options.detail === 'full' ? options : { caller: options.caller }
  let lastRev = -1
  const deliver = (): void => {
    const manifest = base.manifest(read as { caller: Caller; detail: 'full' })
    if (manifest.rev === lastRev) return
    lastRev = manifest.rev
    listener(manifest as never)
  }
  const off = base.subscribe(deliver)
  deliver()
  return off
}

/**
 * `ConsumerHost.watchContext`: the caller's context now, then after each change of entries or of
 * scope visibility, only when an entry the caller sees was added, removed or changed.
 */
export function watchContext(
  table: Pick<ContextTable, 'snapshot' | 'subscribe'>,
  revisions: { subscribe(listener: () => void): () => void },
  caller: Caller,
  listener: (context: ContextSnapshot) => void,
): () => void {
  let last: string | undefined
  const deliver = (): void => {
    const context = table.snapshot(caller)
    const key = context.entries.map((e) => `${e.name} ${e.rev}`).join()
    if (key === last) return
    last = key
    listener(context)
  }
  const offs = [table.subscribe(deliver), revisions.subscribe(deliver)]
  deliver()
  return () => {
    for (const off of offs) off()
  }
}

const OBSERVED = ['call', 'result', 'confirm', 'blocked', 'progress'] as const

/** `ConsumerHost.observe`: the call, result, confirm, blocked and progress events with their call's meta. */
export function observe(events: ConsumerEvents, metas: CallMetas, observer: CallObserver): () => void {
  const offs = OBSERVED.filter((e) => typeof observer[e] === 'function').map((e) =>
    events.on(e, (payload) => observer[e]!(payload as never, metas.get(payload.callId))),
  )
  return () => {
    for (const off of offs) off()
  }
}

/** `ConsumerHost.status`: keeps a shallow copy under `name` (or drops it) and emits `status`. */
export function setStatus(
  all: Record<string, ConsumerStatus>,
  emit: (payload: ToolmarkEvents['status']) => void,
  name: string,
  status: ConsumerStatus | undefined,
): void {
  if (status) all[name] = { ...status }
  else delete all[name]
  emit({ name, status: all[name] })
}

/** `ConsumerHost.run`: `call` with its meta visible to observers until it resolves. */
export function run(
  base: Pick<ConsumerSource, 'call'>,
  metas: CallMetas,
  name: string,
  input: unknown,
  options: ConsumerRunOptions,
): Promise<ToolResult> {
  const meta = options?.meta
  // No meta: exactly `tm.call` (the registry ignores the extra key), no extra promise.
  if (meta === undefined) return base.call(name, input, options)
  const callId = options.callId || newId()
  metas.set(callId, meta)
  const done = (): void => {
    metas.delete(callId)
  }
  const pending = base.call(name, input, { ...options, callId })
  pending.then(done, done)
  return pending
}

/** `ConsumerHost.redact`: fail closed for a tool that is gone. */
export function redact(tools: ToolsBySensitivePaths, tool: string, value: unknown): unknown {
  const paths = tools.get(tool)?.def
  if (!paths) return REDACTED
  return redactedValue(value, paths.sensitivePaths)
}

/**
 * `tm.use`: attaches each consumer once, ref-counted; its cleanup runs when the last of its
 * dispose functions is called (each dispose function works once).
 */
export class Consumers<H> {
  readonly #attached = new Map<
    (host: H) => (() => void) | undefined,
    { count: number; cleanup: (() => void) | undefined }
  >()

  use(consumer: (host: H) => (() => void) | undefined, host: H): () => void {
    let slot = this.#attached.get(consumer)
    if (slot) slot.count++
    else {
      slot = { count: 1, cleanup: undefined }
      this.#attached.set(consumer, slot)
      slot.cleanup = consumer(host) ?? undefined
    }
    const s = slot
    let done = false
    return () => {
      if (done) return
      done = true
      if (--s.count > 0) return
      this.#attached.delete(consumer)
      s.cleanup?.()
    }
  }
}
