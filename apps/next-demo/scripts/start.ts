import { startNextDemo } from './server.ts'

// `pnpm --filter @toolmark-apps/next-demo start` (after `build`); `-- --dev` runs `next dev` instead.
// Prints `ready <url>` once both the app and the agent answer. PORT (default 3000) and HOST
// (default 127.0.0.1) plus the agent server's variables (PROVIDER, DATA_FILE, ...) apply.
const dev = process.argv.includes('--dev')
const demo = await startNextDemo({ dev, env: { PORT: '3000', ...process.env } })
console.log(`ready ${demo.url}`)
const stop = (): void => {
  demo.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
