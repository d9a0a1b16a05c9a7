// "@toolmark/devtools/webmcp": the devtools' answers as one WebMCP tool marked `debugging: true`, so
// the browser's own developer tools (or an agent asked to debug the page) can ask what the panel
// shows. It is published on the browser's model context directly, never registered in the Toolmark
// registry: no caller of the registry (the in-app agent included) ever sees it.
import type { ConsumerHost, ToolmarkConsumer } from '@toolmark/core'
import { CALLERS, createRecorder } from './recorder.ts'

declare const process: { env: { NODE_ENV?: string } }

/** The part of `document.modelContext` this uses (the draft's `registerTool(tool, { signal })`). */
export interface DebugModelContext {
  registerTool(
    tool: {
      name: string
      description: string
      inputSchema: Record<string, unknown>
      annotations: {
        readOnlyHint: boolean
        untrustedContentHint: boolean
        consequentialHint: boolean
        debugging: boolean
      }
      execute(input: unknown): Promise<unknown>
    },
    options: { signal: AbortSignal },
  ): unknown
}

/** Options of {@link devtoolsWebMcp}. */
export interface DevtoolsWebMcpOptions {
  /** Where to publish. Default `document.modelContext`. */
  modelContext?: DebugModelContext
  /** The tool's name. Default `toolmark_devtools`. */
  name?: string
  /** How many recent calls the answer lists. Default 10. */
  calls?: number
  /**
   * Publish the tool in a production build too (`process.env.NODE_ENV === 'production'`), with a
   * console warning. Default false: in production it does nothing.
   */
  production?: boolean
}

/** The console warning of a production build that turns the tool on with `production: true`. */
export const PRODUCTION_WARNING =
  '[toolmark] devtoolsWebMcp({ production: true }): the devtools WebMCP tool is published in a production build. It tells any WebMCP agent on the page which tools exist, who may call them and the recent calls. Remove it before you ship.'

/** What the tool answers: the panel's view of the registry, as JSON (inputs and results left out). */
export interface DevtoolsReport {
  /** The manifest revision. */
  rev: number
  /** Every visible tool with the callers the policy lets see it. */
  tools: { name: string; callers: string[] }[]
  /** What each consumer published (bridge, WebMCP, MCP pairing, tours). */
  consumers: Record<string, unknown>
  /** Open deferred confirmations. */
  pending: { tool: string; caller: string; summary: string; expiresAt: number }[]
  /** The newest calls of every caller since this tool was attached, newest first, with why each ran or not. */
  calls: { tool: string; caller: string; decision: string; code?: string; reason: string }[]
}

/**
 * Publishes the devtools as one read-only WebMCP tool with `annotations.debugging: true`:
 * `tm.use(devtoolsWebMcp())`. It answers a {@link DevtoolsReport}. While attached it records calls
 * (what the panel records while open), so attach it in development only. Inert where the browser
 * has no WebMCP, and in a production build unless `production: true` (which warns on the console).
 */
export function devtoolsWebMcp(options: DevtoolsWebMcpOptions = {}): ToolmarkConsumer {
  return (host) => {
    const production = process.env.NODE_ENV === 'production'
    if (production && !options.production) return undefined
    const mc =
      options.modelContext ??
      (typeof document === 'undefined'
        ? undefined
        : (document as { modelContext?: DebugModelContext }).modelContext)
    if (!mc || typeof mc.registerTool !== 'function') return undefined
    if (production) console.warn(PRODUCTION_WARNING)
    const recorder = createRecorder(host, { limit: 50 })
    const controller = new AbortController()
    const keep = options.calls ?? 10
    try {
      const pending = mc.registerTool(
        {
          name: options.name ?? 'toolmark_devtools',
          description:
            "Debugging only: what the page's Toolmark devtools show. The tools each caller (inapp, webmcp, mcp, tour, test, human) may see, each consumer's status (bridge connection, WebMCP publications, MCP pairing, tours), open confirmations, and the newest calls with why each ran or did not run. Inputs and results are left out.",
          inputSchema: { type: 'object', properties: {}, additionalProperties: false },
          annotations: {
            readOnlyHint: true,
            untrustedContentHint: true,
            consequentialHint: false,
            debugging: true,
          },
          execute: () => Promise.resolve(report(host, recorder.session.calls, keep)),
        },
        { signal: controller.signal },
      )
      // Our own abort on detach rejects a pending registration: expected; a refusal is reported.
      Promise.resolve(pending).catch((err: unknown) => {
        if (!controller.signal.aborted)
          host.report('transport_failed', 'WebMCP refused the devtools tool', { cause: err })
      })
    } catch (err) {
      host.report('transport_failed', 'WebMCP refused the devtools tool', { cause: err })
    }
    return () => {
      controller.abort()
      recorder.dispose()
    }
  }
}

/** The report the tool answers. */
export function report(
  host: ConsumerHost,
  calls: readonly {
    tool: string
    caller: string
    decision: { kind: string; code?: string; reason: string }
  }[],
  keep: number,
): DevtoolsReport {
  const byCaller = CALLERS.map(
    (c) => [c, new Set(host.manifest({ caller: c }).tools.map((t) => t.name))] as const,
  )
  return {
    rev: host.rev,
    tools: host.manifest().tools.map((t) => ({
      name: t.name,
      callers: byCaller.filter(([, names]) => names.has(t.name)).map(([c]) => c),
    })),
    consumers: host.statuses(),
    pending: host
      .pendingConfirmations()
      .map((p) => ({ tool: p.tool, caller: p.caller, summary: p.summary, expiresAt: p.expiresAt })),
    calls: calls
      .slice(-keep)
      .reverse()
      .map((c) => {
        const out: DevtoolsReport['calls'][number] = {
          tool: c.tool,
          caller: c.caller,
          decision: c.decision.kind,
          reason: c.decision.reason,
        }
        if (c.decision.code !== undefined) out.code = c.decision.code
        return out
      }),
  }
}
