// "@toolmark/core/webmcp": publishes the registry's tools on the browser's WebMCP API.

import { TOOL_FAILED_MESSAGE } from '../codes.ts'
import { toJsonSafeResult } from '../tool/serialize.ts'
import type { ConsumerHost, ToolManifest, ToolmarkConsumer, ToolResult } from '../types.ts'

/** WebMCP tool annotations (the draft's `ToolAnnotations`). */
export interface WebMcpAnnotations {
  readOnlyHint: boolean
  untrustedContentHint: boolean
  consequentialHint: boolean
  debugging: boolean
}

/** The tool handed to `registerTool` (the draft's `ModelContextTool`). */
export interface WebMcpTool {
  name: string
  title?: string
  description: string
  inputSchema: Record<string, unknown>
  annotations: WebMcpAnnotations
  /**
   * Resolves a JSON value, never rejects: the `ToolResult`, except that an `ok` result with data of a
   * `structured` tool (one with an output schema) resolves that data itself.
   */
  execute(input: unknown, options?: { signal?: AbortSignal }): Promise<unknown>
}

/**
 * The part of `document.modelContext` this consumer uses: the draft's `registerTool(tool, { signal,
 * exposedTo })`, which the native API and the MCP-B polyfill both implement.
 */
export interface ModelContextLike {
  registerTool(
    tool: WebMcpTool,
    options?: { signal?: AbortSignal; exposedTo?: string[] },
  ): Promise<unknown> | unknown
}

export interface WebMcpOptions {
  /** Where to publish. Default `document.modelContext`, else the older `navigator.modelContext`. */
  modelContext?: ModelContextLike
  /** Passed to `registerTool` as `exposedTo`: the origins (of iframe agents) that may see the tools. */
  exposedTo?: readonly string[]
  /** Marks tools as debugging tools (`annotations.debugging`): all of them, or those the function picks. */
  debugging?: boolean | ((tool: ToolManifest) => boolean)
}

/** One published tool: what it was published as, and how to take it back. */
interface Published {
  readonly tool: ToolManifest
  readonly key: string
  readonly controller: AbortController
  /** The polyfills' older `{ unregister() }` return value, called on removal too. */
  unregister?: () => void
}

/** One publication per registry and model context; a second `webmcp()` shares it (ref-counted). */
interface Publication {
  count: number
  dispose: () => void
}
const publications = new WeakMap<object, Map<ConsumerHost, Publication>>()

const TOOL_FAILED: ToolResult = { status: 'error', message: TOOL_FAILED_MESSAGE }
const WEBMCP = { caller: 'webmcp' } as const

/**
 * Publishes every tool visible to caller `webmcp` on the browser's WebMCP API and keeps the list in
 * sync with every revision, re-registering only tools whose published shape changed. `execute`
 * calls `tm.call(name, input, { caller: 'webmcp', signal })`: Toolmark validates, confirms inline
 * through the app's `confirm` handler and resolves the `ToolResult` as a JSON value, never a
 * rejection. A tool with an output schema resolves an `ok` result's data itself (checked against
 * that schema), the structured result WebMCP hands its agent. Inert without a model context (and,
 * like every consumer, under SSR).
 */
export function webmcp(options: WebMcpOptions = {}): ToolmarkConsumer {
  return (host) => {
    const mc = options.modelContext ?? findModelContext()
    if (!mc || typeof mc.registerTool !== 'function') return undefined
    let byHost = publications.get(mc)
    if (!byHost) {
      byHost = new Map()
      publications.set(mc, byHost)
    }
    const shared = byHost.get(host)
    const publication = shared ?? { count: 0, dispose: publish(host, mc, options) }
    if (!shared) byHost.set(host, publication)
    publication.count++
    let done = false
    return () => {
      if (done) return
      done = true
      if (--publication.count > 0) return
      byHost.delete(host)
      publication.dispose()
    }
  }
}

function findModelContext(): ModelContextLike | undefined {
  const doc = typeof document === 'undefined' ? undefined : (document as { modelContext?: ModelContextLike })
  if (doc?.modelContext) return doc.modelContext
  return typeof navigator === 'undefined'
    ? undefined
    : (navigator as { modelContext?: ModelContextLike }).modelContext
}

function publish(host: ConsumerHost, mc: ModelContextLike, options: WebMcpOptions): () => void {
  const live = new Map<string, Published>()
  const keys = new WeakMap<ToolManifest, string>()
  const exposedTo = options.exposedTo ? [...options.exposedTo] : undefined
  const debugging = options.debugging
  let blocked = false
  let disposed = false
  /** Names WebMCP refused because it already has a tool of that name (the page's own or a form's). */
  const duplicates = new Set<string>()
  /** The status inspectors read: what is published, and what was refused as a duplicate. */
  const say = (): void =>
    host.status('webmcp', {
      state: blocked ? 'not_allowed' : 'published',
      tools: [...live.keys()].filter((name) => !duplicates.has(name)),
      duplicates: [...duplicates],
    })

  const annotationsOf = (tool: ToolManifest): WebMcpAnnotations => ({
    readOnlyHint: tool.hints.readOnly === true,
    untrustedContentHint: tool.hints.untrustedContent === true,
    consequentialHint: tool.hints.consequential === true || tool.hints.destructive === true,
    debugging: typeof debugging === 'function' ? debugging(tool) === true : debugging === true,
  })
  const keyOf = (tool: ToolManifest): string => {
    let key = keys.get(tool)
    if (key === undefined) {
      key = JSON.stringify([
        tool.title,
        tool.description,
        tool.inputSchema,
        annotationsOf(tool),
        tool.structured,
      ])
      keys.set(tool, key)
    }
    return key
  }

  const execute = (name: string, structured: boolean): WebMcpTool['execute'] => {
    // The browser JSON-serializes what execute returns; what JSON cannot carry would fail the call.
    const safe = (result: ToolResult): unknown => {
      const out = toJsonSafeResult(result, (err) =>
        host.report('transport_failed', `The result of "${name}" was not serializable`, {
          tool: name,
          cause: err,
        }),
      )
      return structured && out.status === 'ok' && out.data !== undefined ? out.data : out
    }
    const failed = (err: unknown): ToolResult => {
      host.report('tool_threw', `WebMCP call of "${name}" failed`, { tool: name, cause: err })
      return TOOL_FAILED
    }
    return (input, opts) => {
      const signal = opts?.signal
      try {
        return host
          .run(name, parseInput(input), signal instanceof AbortSignal ? { caller: 'webmcp', signal } : WEBMCP)
          .then(safe, failed)
      } catch (err) {
        return Promise.resolve(failed(err))
      }
    }
  }

  const unpublish = (rec: Published): void => {
    rec.controller.abort()
    try {
      rec.unregister?.()
    } catch {
      // An older polyfill's unregister of a tool it already dropped: nothing left to undo.
    }
  }

  const register = (tool: ToolManifest, key: string): void => {
    const controller = new AbortController()
    duplicates.delete(tool.name)
    const rec: Published = { tool, key, controller }
    live.set(tool.name, rec)
    const published: WebMcpTool = {
      name: tool.name,
      // The draft rejects an empty description.
      description: tool.description || tool.title || tool.name,
      inputSchema: tool.inputSchema,
      annotations: annotationsOf(tool),
      execute: execute(tool.name, tool.structured === true),
    }
    if (tool.title !== undefined) published.title = tool.title
    const failed = (err: unknown): void => {
      // Our own abort (removal, a changed tool, disposal) rejects the pending registration: expected.
      // A refused tool stays in `live` so unchanged revisions do not retry (and report) it again;
      // a changed declaration or a new attach tries again.
      if (controller.signal.aborted || disposed || live.get(tool.name) !== rec) return
      const name = (err as { name?: unknown } | null)?.name
      if (name === 'NotAllowedError') {
        if (blocked) return
        blocked = true
        for (const other of live.values()) unpublish(other)
        live.clear()
        say()
        host.report(
          'transport_failed',
          'WebMCP is not allowed in this document (Permissions-Policy "tools")',
          {
            cause: err,
          },
        )
      } else if (name === 'InvalidStateError') {
        duplicates.add(tool.name)
        say()
        host.report(
          'duplicate_name',
          `WebMCP already has a tool named "${tool.name}" (the page's own tool or a declarative form): not published`,
          { tool: tool.name, cause: err },
        )
      } else {
        host.report('transport_failed', `WebMCP refused tool "${tool.name}"`, { tool: tool.name, cause: err })
      }
    }
    let pending: unknown
    try {
      pending = mc.registerTool(
        published,
        exposedTo ? { signal: controller.signal, exposedTo } : { signal: controller.signal },
      )
    } catch (err) {
      return failed(err)
    }
    if (pending !== null && typeof (pending as Promise<unknown>)?.then === 'function') {
      ;(pending as Promise<unknown>).then((value) => keepUnregister(rec, value), failed)
    } else keepUnregister(rec, pending)
  }

  const sync = (tools: readonly ToolManifest[]): void => {
    if (blocked || disposed) return
    const seen = new Set<string>()
    for (const tool of tools) {
      seen.add(tool.name)
      const cur = live.get(tool.name)
      if (cur && (cur.tool === tool || cur.key === keyOf(tool))) continue
      if (cur) unpublish(cur)
      register(tool, keyOf(tool))
    }
    for (const [name, rec] of live) {
      if (seen.has(name)) continue
      live.delete(name)
      duplicates.delete(name)
      unpublish(rec)
    }
    say()
  }

  const off = host.watch({ caller: 'webmcp', detail: 'full' }, (manifest) => sync(manifest.tools))
  return () => {
    disposed = true
    off()
    for (const rec of live.values()) unpublish(rec)
    live.clear()
    host.status('webmcp', undefined)
  }
}

function keepUnregister(rec: Published, value: unknown): void {
  const unregister = (value as { unregister?: unknown } | null | undefined)?.unregister
  if (typeof unregister !== 'function') return
  rec.unregister = () => unregister.call(value)
  if (rec.controller.signal.aborted) rec.unregister()
}

/** Input as agents send it: an object, a JSON string (older clients), or nothing. */
function parseInput(input: unknown): unknown {
  if (input === undefined) return {}
  if (typeof input !== 'string') return input
  try {
    return JSON.parse(input)
  } catch {
    return input
  }
}
