import { ConfigError, helpText, loadConfig } from './config.ts'

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(helpText())
  process.exit(0)
}

let config: ReturnType<typeof loadConfig>
try {
  config = loadConfig()
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(`Configuration error: ${error.message}\n`)
  process.stderr.write(helpText())
  process.exit(2)
}

/** How long a stop may take (besides DRAIN_MS) before the process exits anyway. */
const STOP_TIMEOUT_MS = 5_000

// Loaded after --help and config checks, so both work without loading the server's dependencies.
const { startServer } = await import('./server.ts')
let server: Awaited<ReturnType<typeof startServer>>
try {
  server = await startServer({ config })
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    const why = code === 'EADDRINUSE' ? 'is already in use' : 'cannot be opened (permission denied)'
    const other = config.port === 65535 ? 8787 : config.port + 1
    console.error(
      `Port ${config.port} on ${config.host} ${why}. Stop the other server, or start with PORT=0 (any free port) or another port, e.g. PORT=${other}.`,
    )
    process.exit(1)
  }
  throw error
}
console.info(
  `Toolmark agent server on ${server.url} (provider: ${server.provider.name}, data: ${
    config.databaseUrl ? 'PostgreSQL' : config.dataFile
  }${config.redisUrl ? ', shared mode through Redis' : ''})`,
)

let stopping = false
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return
  stopping = true
  const timer = setTimeout(() => {
    console.error(`Stopped the agent server (${signal}) without waiting for running turns.`)
    process.exit(1)
  }, STOP_TIMEOUT_MS + config.drainMs)
  timer.unref()
  // Sockets, streams and pending calls are closed, then the SQLite file (WAL checkpointed).
  server.close().then(
    () => {
      console.info(`Stopped the agent server (${signal}).`)
      process.exit(0)
    },
    (error: unknown) => {
      console.error(`The agent server did not stop cleanly (${signal}): ${String(error)}`)
      process.exit(1)
    },
  )
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
