import { fileURLToPath } from 'node:url'

/** Which model provider runs the agent loop. */
export type ProviderName = 'embedded' | 'anthropic' | 'openai'

/** The server's configuration, read from environment variables (see {@link ENV_DOCS}). */
export interface Config {
  port: number
  host: string
  /** SQLite file, or `':memory:'` (unused when `databaseUrl` is set). */
  dataFile: string
  /** PostgreSQL URL: the shared store of several instances instead of the SQLite file. */
  databaseUrl: string | undefined
  /** Redis URL: shared mode (several instances behind a load balancer); needs `databaseUrl`. */
  redisUrl: string | undefined
  provider: ProviderName
  /** How long a page has to answer a `call`/`describe` before the agent sees a timeout. */
  callDeadlineMs: number
  /** How long a confirmation's approval is accepted after the page asked for it. */
  confirmationTtlMs: number
  /** How long a stop keeps serving with `/toolmark/ready` answering 503 before sockets and streams close. */
  drainMs: number
  /** Built demo assets (`apps/demo/dist`); served with an SPA fallback. */
  staticDir: string
  /** HMAC key for the session cookie; a random one is created and kept in the store when unset. */
  sessionSecret: string | undefined
  /**
   * Public origins (`scheme://host[:port]`) this server may be reached at besides loopback names:
   * requests whose `Host` or `Origin` is neither are refused (DNS rebinding, CSRF).
   */
  allowedOrigins: string[]
  /** A session unused for this long expires (sliding), with its user's conversations. */
  sessionTtlMs: number
  /** At most this many sessions are kept; creating one more removes the least recently used. */
  maxSessions: number
  /** Milliseconds between keep-alive comments on the chat's server-sent event stream. */
  sseKeepAliveMs: number
  anthropicApiKey: string | undefined
  anthropicBaseUrl: string
  anthropicModel: string
  openaiApiKey: string | undefined
  openaiBaseUrl: string
  openaiModel: string
}

const HERE = fileURLToPath(new URL('..', import.meta.url))

/** Every environment variable, its default and what it does. `--help` prints this table. */
export const ENV_DOCS: ReadonlyArray<readonly [name: string, fallback: string, meaning: string]> = [
  ['PORT', '8787', 'HTTP + WebSocket port (0 picks a free one)'],
  ['HOST', '127.0.0.1', 'interface to listen on (keep loopback for the demo)'],
  [
    'DATA_FILE',
    './data/toolmark-demo.db',
    "SQLite file (relative to apps/agent-server); ':memory:' keeps nothing",
  ],
  [
    'DATABASE_URL',
    '(unset: the SQLite file)',
    'PostgreSQL URL (postgres://user:password@host:5432/db): the store several instances share',
  ],
  [
    'REDIS_URL',
    '(unset: one instance)',
    'Redis URL (redis://host:6379): shared mode, any instance serves any request; needs DATABASE_URL',
  ],
  [
    'PROVIDER',
    'auto',
    'embedded | anthropic | openai; auto = anthropic with ANTHROPIC_API_KEY, openai with OPENAI_API_KEY, else embedded',
  ],
  [
    'CALL_DEADLINE_MS',
    '15000',
    'deadline for each page call; later results are rejected and a cancel is sent',
  ],
  [
    'CONFIRM_TTL_MS',
    '660000',
    "how long a confirmation's approval is accepted (the page's 600000 ms plus a minute); later ones are refused",
  ],
  [
    'DRAIN_MS',
    '0',
    'on SIGTERM/SIGINT, how long /toolmark/ready answers 503 while everything else keeps serving, before sockets and streams close (a load balancer stops sending work first)',
  ],
  [
    'STATIC_DIR',
    '../demo/dist',
    'built demo assets (relative to apps/agent-server), served with an SPA fallback',
  ],
  ['SESSION_SECRET', '(random, kept in the store)', 'HMAC-SHA256 key signing the tm_session cookie'],
  [
    'ALLOWED_ORIGINS',
    '(none: loopback only)',
    'comma-separated public origins (e.g. https://demo.example.com) the server answers besides localhost, ' +
      '127.0.0.1 and [::1]; any other Host or Origin gets 403 (WebSocket close 4403)',
  ],
  [
    'SESSION_TTL_MS',
    '604800000 (7 days)',
    'a session unused this long expires, and its conversations are deleted',
  ],
  ['MAX_SESSIONS', '10000', 'most sessions kept; beyond it the least recently used are removed'],
  ['SSE_KEEP_ALIVE_MS', '15000', 'interval of keep-alive comments on the chat event stream'],
  ['ANTHROPIC_API_KEY', '(unset)', 'enables the Anthropic Messages API provider'],
  ['ANTHROPIC_BASE_URL', 'https://api.anthropic.com', 'Anthropic API origin'],
  ['ANTHROPIC_MODEL', 'claude-sonnet-4-5', 'Anthropic model id'],
  ['OPENAI_API_KEY', '(unset)', 'enables the OpenAI-compatible Chat Completions provider'],
  [
    'OPENAI_BASE_URL',
    'https://api.openai.com/v1',
    'Chat Completions base URL (e.g. http://127.0.0.1:11434/v1 for Ollama)',
  ],
  ['OPENAI_MODEL', 'gpt-4o-mini', 'Chat Completions model id'],
]

/** The `--help` text. */
export function helpText(): string {
  const width = Math.max(...ENV_DOCS.map(([name]) => name.length))
  const rows = ENV_DOCS.map(
    ([name, fallback, meaning]) =>
      `  ${name.padEnd(width)}  ${meaning}\n  ${' '.repeat(width)}  default: ${fallback}`,
  )
  return [
    "Toolmark's demo agent server: @toolmark/server (bridge protocol v1) with the demo's configuration and pages.",
    '',
    'Usage: node --conditions=@toolmark/source --import tsx src/main.ts [--help]',
    '',
    'Environment variables:',
    ...rows,
    '',
  ].join('\n')
}

/** Thrown for an environment variable with a value the server cannot use. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`)
  }
  return value
}

function text(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim()
  return raw === undefined || raw === '' ? undefined : raw
}

/** `scheme://host[:port]` exactly as a browser serializes an origin (no path, no trailing slash). */
function origins(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = text(env, name)
  if (raw === undefined) return []
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      let url: URL | undefined
      try {
        url = new URL(entry)
      } catch {}
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry) {
        throw new ConfigError(
          `${name} entries must be origins such as https://demo.example.com (scheme://host[:port], no path or trailing slash), got ${JSON.stringify(entry)}`,
        )
      }
      return entry
    })
}

/** A service URL with one of `protocols`, or undefined when unset. */
function serviceUrl(env: NodeJS.ProcessEnv, name: string, protocols: readonly string[]): string | undefined {
  const raw = text(env, name)
  if (raw === undefined) return undefined
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {}
  // The value may hold a password: the error names the variable and the expected form, never the value.
  if (!url || !protocols.includes(url.protocol))
    throw new ConfigError(
      `${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    )
  return raw
}

function pathFrom(base: string, value: string): string {
  if (value === ':memory:') return value
  return value.startsWith('/') ? value : fileURLToPath(new URL(value, `file://${base}`))
}

/**
 * Reads the configuration from `env` (default `process.env`). Relative paths resolve against
 * `apps/agent-server/`. Throws {@link ConfigError} for unusable values.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const anthropicApiKey = text(env, 'ANTHROPIC_API_KEY')
  const openaiApiKey = text(env, 'OPENAI_API_KEY')
  const requested = text(env, 'PROVIDER') ?? 'auto'
  let provider: ProviderName
  if (requested === 'auto') provider = anthropicApiKey ? 'anthropic' : openaiApiKey ? 'openai' : 'embedded'
  else if (requested === 'embedded' || requested === 'anthropic' || requested === 'openai')
    provider = requested
  else
    throw new ConfigError(
      `PROVIDER must be embedded, anthropic, openai or auto, got ${JSON.stringify(requested)}`,
    )
  if (provider === 'anthropic' && !anthropicApiKey)
    throw new ConfigError('PROVIDER=anthropic needs ANTHROPIC_API_KEY')
  if (provider === 'openai' && !openaiApiKey) throw new ConfigError('PROVIDER=openai needs OPENAI_API_KEY')
  const databaseUrl = serviceUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:'])
  const redisUrl = serviceUrl(env, 'REDIS_URL', ['redis:', 'rediss:'])
  if (redisUrl && !databaseUrl)
    throw new ConfigError('REDIS_URL needs DATABASE_URL: instances that share Redis must share one store too')
  return {
    databaseUrl,
    redisUrl,
    port: integer(env, 'PORT', 8787, 0, 65535),
    host: text(env, 'HOST') ?? '127.0.0.1',
    dataFile: pathFrom(HERE, text(env, 'DATA_FILE') ?? './data/toolmark-demo.db'),
    provider,
    callDeadlineMs: integer(env, 'CALL_DEADLINE_MS', 15_000, 1, 3_600_000),
    confirmationTtlMs: integer(env, 'CONFIRM_TTL_MS', 660_000, 100, 86_400_000),
    drainMs: integer(env, 'DRAIN_MS', 0, 0, 600_000),
    staticDir: pathFrom(HERE, text(env, 'STATIC_DIR') ?? '../demo/dist'),
    sessionSecret: text(env, 'SESSION_SECRET'),
    allowedOrigins: origins(env, 'ALLOWED_ORIGINS'),
    sessionTtlMs: integer(env, 'SESSION_TTL_MS', 7 * 86_400_000, 60_000, 365 * 86_400_000),
    maxSessions: integer(env, 'MAX_SESSIONS', 10_000, 1, 10_000_000),
    sseKeepAliveMs: integer(env, 'SSE_KEEP_ALIVE_MS', 15_000, 10, 3_600_000),
    anthropicApiKey,
    anthropicBaseUrl: text(env, 'ANTHROPIC_BASE_URL') ?? 'https://api.anthropic.com',
    anthropicModel: text(env, 'ANTHROPIC_MODEL') ?? 'claude-sonnet-4-5',
    openaiApiKey,
    openaiBaseUrl: text(env, 'OPENAI_BASE_URL') ?? 'https://api.openai.com/v1',
    openaiModel: text(env, 'OPENAI_MODEL') ?? 'gpt-4o-mini',
  }
}
