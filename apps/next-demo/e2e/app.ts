import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const APP_DIR = fileURLToPath(new URL('..', import.meta.url))

/** A running next-demo (`next start`, or `next dev`) in its own process. */
export interface RunningApp {
  url: string
  /** Everything the process wrote (stdout and stderr), across restarts. */
  output: string[]
  /**
   * Stops the process as `close()` does and starts a new one with the same variant on the same port (and
   * the same `dataFile`), as a deploy or a crash and a restart would. `url` stays the same.
   */
  restart(): Promise<void>
  close(): Promise<void>
  /** How the last stopped process ended: on `SIGTERM` as asked, or killed 10 s later (`SIGKILL`). */
  stoppedBy: 'SIGTERM' | 'SIGKILL' | undefined
}

export interface AppVariant {
  /** `next dev` (StrictMode, development React) instead of the production build. */
  dev?: boolean
  /** Serve the Cache Components build (`TOOLMARK_CACHE_COMPONENTS=1`) from this dist folder. */
  cacheComponentsDir?: string
  /** The SQLite file the route handlers keep their state in (`DATA_FILE`). Default none: in memory. */
  dataFile?: string
  /** The port to listen on. Default 0: a free one. */
  port?: number
}

/** Next's own command line (`node_modules/.bin/next` is a shell shim; this is the file it runs). */
export const NEXT_BIN = fileURLToPath(new URL('../node_modules/next/dist/bin/next', import.meta.url))

/**
 * Starts the demo as its documented command does, Next's own server (`next start`, or `next dev`)
 * with nothing around it, on 127.0.0.1 port 0 (or `variant.port`) with the embedded agent (the route
 * handlers' `PROVIDER`); resolves with the URL Next prints once it is ready.
 */
export async function startApp(variant: AppVariant = {}): Promise<RunningApp> {
  const output: string[] = []
  let running = await spawnNext(variant, output)
  const app: RunningApp = {
    url: running.url,
    output,
    stoppedBy: undefined,
    async restart() {
      app.stoppedBy = await running.stop()
      running = await spawnNext({ ...variant, port: Number(new URL(app.url).port) }, output)
    },
    async close() {
      app.stoppedBy = await running.stop()
    },
  }
  return app
}

/** One `next` process: the URL it printed, and how to stop it (resolves with the signal that ended it). */
interface NextProcess {
  url: string
  stop(): Promise<'SIGTERM' | 'SIGKILL'>
}

/** Spawns `next start` (or `next dev`) for `variant`, writing into `output`; resolves once it is ready. */
function spawnNext(variant: AppVariant, output: string[]): Promise<NextProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: variant.dev ? 'development' : 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    PROVIDER: 'embedded',
    CALL_DEADLINE_MS: '10000',
  }
  if (variant.cacheComponentsDir) {
    env.TOOLMARK_CACHE_COMPONENTS = '1'
    env.NEXT_DIST_DIR = variant.cacheComponentsDir
  }
  if (variant.dataFile) env.DATA_FILE = variant.dataFile
  const args = [NEXT_BIN, variant.dev ? 'dev' : 'start', '-H', '127.0.0.1', '-p', String(variant.port ?? 0)]
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: APP_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  // Readiness is read from this process's own output only (the array may hold an earlier process's).
  const own: string[] = []
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`next-demo did not start within 60 s:\n${own.join('')}`))
    }, 60_000)
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString('utf8')
      output.push(text)
      own.push(text)
      const all = own.join('')
      const ready = /Ready in/.test(all) ? /- Local:\s+(http:\/\/\S+)/.exec(all) : null
      if (ready?.[1]) {
        clearTimeout(timer)
        child.stdout?.off('data', onData)
        child.stdout?.on('data', (more: Buffer) => output.push(more.toString('utf8')))
        resolve({
          url: ready[1],
          async stop() {
            let by: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'
            if (child.exitCode === null) child.kill('SIGTERM')
            const forced = setTimeout(() => {
              by = 'SIGKILL'
              child.kill('SIGKILL')
            }, 10_000)
            await exited
            clearTimeout(forced)
            return by
          },
        })
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => {
      output.push(chunk.toString('utf8'))
      own.push(chunk.toString('utf8'))
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`next-demo exited (${code}) before it was ready:\n${own.join('')}`))
    })
  })
}
