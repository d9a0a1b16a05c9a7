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

// Loaded after --help and config checks, so both work without loading the server's dependencies.
const { startServer } = await import('./server.ts')
const server = await startServer({ config })
console.info(
  `Toolmark agent server on ${server.url} (provider: ${server.provider.name}, data: ${config.dataFile})`,
)

let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
