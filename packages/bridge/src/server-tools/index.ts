// "@toolmark/bridge/server-tools": tools whose definitions come from the server (e.g. a Laravel
// endpoint listing them) and whose `run` POSTs the validated input to a same-origin endpoint.
import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { Issue, JsonSchema, RunResult, Scope, ToolDefinition, ToolHints, Toolmark } from '@toolmark/core'
import { ERROR_MESSAGES, error, fromJsonSchema, invalid, ok, refused } from '@toolmark/core'
import { isValidName } from '@toolmark/core/adapter'

/** One tool as the server lists it. */
export interface ServerToolDefinition {
  /** Local name (`^[A-Za-z0-9_.-]{1,128}$`). */
  name: string
  /** LLM-facing. */
  description: string
  title?: string
  /** JSON Schema of the input (the `fromJsonSchema` subset); validated before any request. */
  inputSchema: JsonSchema
  hints?: ToolHints
  sensitivePaths?: string[]
  /** Where `run` POSTs (same-origin); default `callUrl` + `/` + the name. */
  url?: string
}

/** A listed tool that was not registered, and why. */
export interface ServerToolFailure {
  name: string
  code: 'schema_conversion_failed' | 'invalid_definition'
  message: string
}

/** Options of `serverTools`. */
export interface ServerToolsOptions {
  /** Same-origin URL answering `GET` with `{ tools: ServerToolDefinition[] }` (or the array). */
  listUrl: string
  /** Base of each tool's POST URL (`<callUrl>/<name>`) when a definition has no `url`. Default `listUrl`. */
  callUrl?: string
  /** Scope name of the tools (default: none, they register at `target`'s level). */
  scope?: string
  /**
   * Headers for every request, read each time; must carry the CSRF header. Default:
   * `X-XSRF-TOKEN` from the `XSRF-TOKEN` cookie (Laravel's convention).
   */
  headers?: () => Record<string, string>
  /** The page URL same-origin checks resolve against. Default `location.href`. */
  baseUrl?: string
  /** Called for each listed tool that could not be registered. */
  onSkip?: (failure: ServerToolFailure) => void
}

/** What `serverTools` returns. */
export interface ServerTools {
  /**
   * (Re)loads the list: the previous tools are replaced in one manifest update. Rejects (keeping the
   * previous tools) when the list cannot be fetched or is not `{ tools: [...] }`.
   */
  load(signal?: AbortSignal): Promise<{ tools: string[]; skipped: ServerToolFailure[] }>
  /** Removes every server tool. */
  dispose(): void
}

/** Laravel's CSRF token: the URL-decoded `XSRF-TOKEN` cookie (`''` when absent). */
function xsrf(): string {
  const raw = /(?:^|;\s*)XSRF-TOKEN=([^;]*)/.exec(globalThis.document?.cookie ?? '')?.[1]
  if (raw === undefined) return ''
  try {
    return decodeURIComponent(raw)
  } catch {
    return ''
  }
}

/** `url` resolved against `base`; throws a `TypeError` unless it is same-origin http(s). */
function sameOrigin(url: string, base: string | undefined): string {
  let resolved: URL
  try {
    resolved = base === undefined ? new URL(url) : new URL(url, base)
  } catch {
    throw new TypeError(`serverTools: ${JSON.stringify(url)} is not a valid URL`)
  }
  if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:')
    throw new TypeError(`serverTools: ${JSON.stringify(url)} must be an http(s) URL`)
  if (resolved.username !== '' || resolved.password !== '')
    throw new TypeError(`serverTools: ${JSON.stringify(url)} must not carry credentials`)
  if (base !== undefined && resolved.origin !== new URL(base).origin)
    throw new TypeError(
      `serverTools: ${JSON.stringify(url)} must be same-origin (cross-origin would leak input)`,
    )
  return resolved.href
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Laravel's 422 body `{ message, errors: { 'items.0.name': ['...'] } }` as issues. */
function laravelIssues(body: unknown): Issue[] {
  const errors = isObject(body) ? body.errors : undefined
  const issues: Issue[] = []
  if (isObject(errors)) {
    for (const [path, messages] of Object.entries(errors)) {
      for (const message of Array.isArray(messages) ? messages : [messages]) {
        if (typeof message === 'string') issues.push({ path, message })
      }
    }
  }
  if (issues.length === 0) issues.push({ path: '', message: 'The given data was invalid.' })
  return issues
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text()
  if (text.trim() === '') return undefined
  return JSON.parse(text)
}

/**
 * The POST behind a server tool: JSON body, `credentials: 'same-origin'`, `redirect: 'error'`,
 * the CSRF header. 2xx → `ok(json)` (`ok()` for an empty body), 422 → `invalid` (Laravel's
 * `errors`), 403 → `refused not_allowed`, anything else (other statuses, a redirect, a network
 * failure, a body that is not JSON) → `error "Tool failed"`.
 */
export async function postTool(
  url: string,
  input: unknown,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<RunResult> {
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      redirect: 'error',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'X-Requested-With': 'XMLHttpRequest',
        ...headers,
      },
      body: JSON.stringify(input),
      ...(signal === undefined ? {} : { signal }),
    })
  } catch {
    return error(ERROR_MESSAGES.toolFailed)
  }
  try {
    if (response.status === 422) return invalid(laravelIssues(await readJson(response)))
    if (response.status === 403) {
      await response.body?.cancel().catch(() => {})
      return refused('not_allowed')
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {})
      return error(ERROR_MESSAGES.toolFailed)
    }
    const data = await readJson(response)
    return data === undefined ? ok() : ok(data)
  } catch {
    return error(ERROR_MESSAGES.toolFailed)
  }
}

/** Checks a listed definition and builds its tool, or says why not. */
export function serverToolDefinition(
  raw: unknown,
  url: (name: string, own: unknown) => string,
  headers: () => Record<string, string>,
): ToolDefinition | ServerToolFailure {
  const name =
    isObject(raw) && typeof raw.name === 'string' ? raw.name : String((raw as { name?: unknown })?.name)
  const bad = (message: string): ServerToolFailure => ({ name, code: 'invalid_definition', message })
  if (!isObject(raw) || !isValidName(name)) return bad('A definition needs a valid name')
  if (typeof raw.description !== 'string' || raw.description === '')
    return bad('A definition needs a description')
  if (!isObject(raw.inputSchema)) return bad('A definition needs an inputSchema object')
  if (raw.title !== undefined && typeof raw.title !== 'string') return bad('title must be a string')
  if (raw.hints !== undefined && !isObject(raw.hints)) return bad('hints must be an object')
  const paths = raw.sensitivePaths
  if (paths !== undefined && !(Array.isArray(paths) && paths.every((p) => typeof p === 'string')))
    return bad('sensitivePaths must be a list of strings')
  let target: string
  try {
    target = url(name, raw.url)
  } catch (err) {
    return bad((err as Error).message)
  }
  let input: StandardSchemaV1
  try {
    input = fromJsonSchema(raw.inputSchema)
  } catch (err) {
    return { name, code: 'schema_conversion_failed', message: (err as Error).message }
  }
  const hints: ToolHints = {}
  for (const key of ['readOnly', 'consequential', 'destructive', 'untrustedContent'] as const) {
    if (typeof raw.hints?.[key] === 'boolean') hints[key] = raw.hints[key] as boolean
  }
  const tool: ToolDefinition = {
    name,
    description: raw.description,
    input,
    hints,
    run: (value, ctx) => postTool(target, value, headers(), ctx.signal),
  }
  if (typeof raw.title === 'string') tool.title = raw.title
  if (paths !== undefined) tool.sensitivePaths = [...(paths as string[])]
  return tool
}

/**
 * Registers the tools a same-origin endpoint lists (name, description, JSON Schema, hints,
 * sensitive paths). Each call is validated with `fromJsonSchema` before anything is sent, then
 * POSTed with the CSRF header (see `postTool` for how answers map to results). A definition whose
 * schema cannot be compiled is skipped with `schema_conversion_failed`; a malformed one with
 * `invalid_definition`. Throws a `TypeError` for a cross-origin `listUrl` or `callUrl`.
 */
export function serverTools(target: Toolmark | Scope, options: ServerToolsOptions): ServerTools {
  const base = options.baseUrl ?? globalThis.location?.href
  const listUrl = sameOrigin(options.listUrl, base)
  const callBase = sameOrigin(options.callUrl ?? options.listUrl, base)
  const headers = options.headers ?? (() => ({ 'X-XSRF-TOKEN': xsrf() }))
  const urlOf = (name: string, own: unknown): string =>
    typeof own === 'string'
      ? sameOrigin(own, base)
      : `${callBase.replace(/\/$/, '')}/${encodeURIComponent(name)}`
  let current: Scope | undefined
  let generation = 0
  let disposed = false
  return {
    async load(signal) {
      const mine = ++generation
      const response = await fetch(listUrl, {
        credentials: 'same-origin',
        redirect: 'error',
        headers: { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest', ...headers() },
        ...(signal === undefined ? {} : { signal }),
      })
      if (!response.ok) {
        await response.body?.cancel().catch(() => {})
        throw new Error(`serverTools: GET ${listUrl} answered HTTP ${response.status}`)
      }
      const body: unknown = await response.json()
      const list = Array.isArray(body)
        ? body
        : isObject(body) && Array.isArray(body.tools)
          ? body.tools
          : undefined
      if (list === undefined) throw new Error(`serverTools: GET ${listUrl} did not answer { tools: [...] }`)
      // A newer load (or dispose) won while this one waited: its list is the current one.
      if (mine !== generation || disposed) return { tools: [], skipped: [] }
      const skipped: ServerToolFailure[] = []
      const tools: ToolDefinition[] = []
      for (const raw of list) {
        const built = serverToolDefinition(raw, urlOf, headers)
        if ('run' in built) tools.push(built)
        else {
          skipped.push(built)
          options.onSkip?.(built)
        }
      }
      // Replace the previous set in one go: the registry publishes one manifest for both.
      current?.dispose()
      const scope =
        options.scope === undefined ? target.scope('', { transparent: true }) : target.scope(options.scope)
      current = scope
      const names: string[] = []
      for (const tool of tools) names.push(scope.register(tool).name)
      return { tools: names, skipped }
    },
    dispose() {
      disposed = true
      current?.dispose()
      current = undefined
    },
  }
}
