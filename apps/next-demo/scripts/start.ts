import { startNextDemo } from './server.ts'

// `pnpm --filter @toolmark-apps/next-demo start` (after `build`); `-- --dev` runs `next dev` instead.
// Prints `ready <url>` once both the app and the agent answer. PORT (default 3000) and HOST
// (default 127.0.0.1) plus the agent server's variables (PROVIDER, DATA_FILE, ...) apply.
const dev = process.argv.includes('--dev')
const demo = await startNextDemo({ dev, env: { PORT: '3000', ...process.env } })
console.log(`ready ${demo.url}`)
// Ctrl+C (or SIGTERM) closes the agent's sockets and store and Next's server, prints one line, exits 0.
let stopping = false
const stop = (signal: NodeJS.Signals): void => {
  if (stopping) return
  stopping = true
  demo.close().then(
    () => {
      console.log(`Stopped the Next demo (${signal}).`)
      process.exit(0)
    },
    (error: unknown) => {
      console.error(`The Next demo did not stop cleanly (${signal}): ${String(error)}`)
      process.exit(1)
    },
  )
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
