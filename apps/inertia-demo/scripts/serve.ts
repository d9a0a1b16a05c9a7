import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { chatCompletions } from '@toolmark/server/openai-compat'
import { OfflineProvider } from '@toolmark-apps/agent-server'
import { type PusherServer, startPusherServer } from '@toolmark-internal/pusher-server'

/*
 * Starts the whole Inertia demo on loopback, each part on a free port:
 * - the Pusher protocol server (@toolmark-internal/pusher-server, what Reverb does);
 * - the agent server's embedded planner as /v1/chat/completions (unless OPENAI_API_KEY is set);
 * - Laravel 8 (Debian's php-laravel-framework) under `php -S` with 4 workers, on a fresh SQLite
 *   file with the migrations run, plus `php artisan queue:work` for toolmark/laravel's queued jobs.
 * `pnpm --filter @toolmark-apps/inertia-demo start` runs it (build the page first: `… build`); the script
 * `exec`s node, so Ctrl+C reaches it without a shell in between and pnpm reports no failure.
 */

const LARAVEL = fileURLToPath(new URL('../laravel', import.meta.url))

export interface Demo {
  url: string
  pusher: PusherServer
  /** The SQLite file (the e2e tests read the bindings from it). */
  database: string
  /** Laravel's log (rejections of forged page messages are logged there). */
  log: string
  /** PHP's own error log (fatal errors, warnings). */
  phpLog: string
  stop(): Promise<void>
}

export interface DemoOptions {
  /** Deadline of each page call in ms (default 15000). */
  deadlineMs?: number
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`php exited with ${child.exitCode}`)
    try {
      await fetch(url, { redirect: 'manual' })
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  throw new Error(`${url} did not answer`)
}

export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const dir = mkdtempSync(join(tmpdir(), 'inertia-demo-'))
  const storage = join(dir, 'storage')
  for (const sub of ['framework/sessions', 'framework/views', 'framework/cache', 'logs', 'app']) {
    mkdirSync(join(storage, sub), { recursive: true })
  }
  const database = join(dir, 'database.sqlite')
  writeFileSync(database, '')
  const secret = randomBytes(16).toString('hex')
  const pusher = await startPusherServer({ appId: '1', key: 'demo-key', secret })

  const agent = process.env.OPENAI_API_KEY
    ? undefined
    : await new Promise<ReturnType<typeof serve>>((resolve) => {
        const server = serve(
          { fetch: chatCompletions(new OfflineProvider()).fetch, hostname: '127.0.0.1', port: 0 },
          () => resolve(server),
        )
      })
  const agentPort = agent ? (agent.address() as { port: number }).port : 0

  const env = {
    ...process.env,
    APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    DB_DATABASE: database,
    TOOLMARK_STORAGE: storage,
    PUSHER_APP_ID: pusher.appId,
    PUSHER_APP_KEY: pusher.key,
    PUSHER_APP_SECRET: pusher.secret,
    PUSHER_HOST: '127.0.0.1',
    PUSHER_PORT: String(pusher.port),
    TOOLMARK_LLM_URL: `http://127.0.0.1:${agentPort}/v1`,
    TOOLMARK_DEADLINE_MS: String(options.deadlineMs ?? 15_000),
    PHP_CLI_SERVER_WORKERS: '4',
  }
  const migrate = spawnSync('php', ['artisan', 'migrate', '--force'], { cwd: LARAVEL, env, encoding: 'utf8' })
  if (migrate.status !== 0) throw new Error(`migrate failed: ${migrate.stdout}${migrate.stderr}`)
  // WAL lets the web workers read while the queue worker writes.
  spawnSync('php', ['-r', `(new PDO('sqlite:${database}'))->exec('PRAGMA journal_mode=WAL');`])

  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const phpLog = join(storage, 'logs/php.log')
  const ini = ['-d', 'log_errors=1', '-d', `error_log=${phpLog}`, '-d', 'display_errors=0']
  const web = spawn('php', [...ini, '-S', `127.0.0.1:${port}`, '-t', 'public', 'public/index.php'], {
    cwd: LARAVEL,
    env: { ...env, APP_URL: url },
    stdio: ['ignore', 'ignore', process.env.TOOLMARK_DEMO_LOG ? 'inherit' : 'pipe'],
    // Its own process group: `php -S` forks workers that must stop with it.
    detached: true,
  })
  const worker = spawn(
    'php',
    [
      ...ini,
      'artisan',
      'queue:work',
      '--sleep=0.05',
      '--tries=1',
      ...(process.env.TOOLMARK_DEMO_LOG ? [] : ['--quiet']),
    ],
    {
      cwd: LARAVEL,
      env: { ...env, APP_URL: url },
      stdio: ['ignore', 'ignore', 'inherit'],
      detached: true,
    },
  )
  web.stderr?.resume()
  await waitFor(`${url}/login`, web)

  // Each child leads its own process group (`php -S` and its workers): stop the group, forcibly after 5 s
  // (the queue worker finishes its current job first), and resolve once no process of it is left.
  const stopChild = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.pid === undefined) return resolve()
      const group = -child.pid
      const signal = (name: NodeJS.Signals | 0): boolean => {
        try {
          process.kill(group, name)
          return true
        } catch {
          return false // no process left in the group
        }
      }
      const force = setTimeout(() => signal('SIGKILL'), 5000)
      const giveUp = Date.now() + 10_000 // a process that cannot be reaped does not hold the stop forever
      const gone = () => {
        if (signal(0) && Date.now() < giveUp) return void setTimeout(gone, 20)
        clearTimeout(force)
        resolve()
      }
      const leaderGone = () => {
        signal('SIGKILL') // workers the group leader left behind
        gone()
      }
      if (child.exitCode !== null || child.signalCode !== null) leaderGone()
      else {
        child.once('exit', leaderGone)
        signal('SIGTERM')
      }
    })

  return {
    url,
    pusher,
    database,
    log: join(storage, 'logs/laravel.log'),
    phpLog,
    async stop() {
      await Promise.all([stopChild(web), stopChild(worker)])
      await pusher.close()
      await new Promise<void>((resolve) => (agent ? agent.close(() => resolve()) : resolve()))
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const demo = await startDemo()
  console.info(`Inertia demo on ${demo.url}/login/alice (Ctrl+C stops it)`)
  // Ctrl+C (or SIGTERM) stops PHP, the queue worker and the servers, prints one line and exits 0.
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    demo.stop().then(
      () => {
        console.info(`Stopped the Inertia demo (${signal}).`)
        process.exit(0)
      },
      (error: unknown) => {
        console.error(`The Inertia demo did not stop cleanly (${signal}): ${String(error)}`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}
