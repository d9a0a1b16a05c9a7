/**
 * Real Redis and PostgreSQL servers for the tests that need them: each on a free loopback port with a
 * temporary data directory, started by the test itself and stopped by it (and, should the test process
 * end without stopping them, by an exit handler here, so no server outlives its test run).
 *
 * Redis 7 runs as `redis-server --save '' --appendonly no` (nothing kept on disk). PostgreSQL 15 runs from
 * /usr/lib/postgresql/15/bin (Debian's `postgresql-15`); it refuses to run as root, so as root the data
 * directory belongs to the `postgres` user and initdb/pg_ctl run as that user.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

/** Where Debian installs PostgreSQL 15's programs. */
export const PG_BIN = '/usr/lib/postgresql/15/bin'

const cleanups = new Set<() => void>()
process.once('exit', () => {
  for (const cleanup of cleanups) {
    try {
      cleanup()
    } catch {
      // best effort: the process is ending
    }
  }
})

/** A free TCP port on 127.0.0.1 (the OS picks it; it is released before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Resolves once something accepts TCP connections on `port`, or rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port })
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    if (Date.now() > deadline) throw new Error(`Nothing listens on 127.0.0.1:${port}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** A Redis server started by a test. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  /** Stops the server (SIGTERM, then SIGKILL); everything it held is gone (no persistence). */
  stop(): Promise<void>
  /** Starts it again on the same port, empty. */
  start(): Promise<void>
}

/** Starts `redis-server` on a free loopback port, with no persistence. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const kill = () => child?.kill('SIGKILL')
  cleanups.add(kill)
  const start = async () => {
    const proc = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    )
    child = proc
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) => reject(new Error(`redis-server exited (${code})`))),
    )
    exited.catch(() => {})
    await Promise.race([waitForPort(port), exited])
  }
  const stop = async () => {
    const proc = child
    child = undefined
    if (!proc || proc.exitCode !== null) return
    const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
    proc.kill('SIGTERM')
    const timer = setTimeout(() => proc.kill('SIGKILL'), 3000)
    await gone
    clearTimeout(timer)
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
  }
}

/** A PostgreSQL server started by a test. */
export interface TestPostgres {
  /** `postgres://toolmark@127.0.0.1:<port>/postgres` (trust authentication on loopback). */
  readonly url: string
  readonly port: number
  /** A connection URL for the database `name` on this server (create it with `createDatabase`). */
  urlOf(name: string): string
  /** Stops the server (`pg_ctl stop -m fast`): clients get connection errors until `start()`. */
  stop(): Promise<void>
  /** Starts the stopped server again with the same data. */
  start(): Promise<void>
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>
}

/** Starts PostgreSQL 15 in a temporary data directory on a free loopback port. */
export async function startPostgres(): Promise<TestPostgres> {
  if (!existsSync(join(PG_BIN, 'postgres')))
    throw new Error(`PostgreSQL 15 is not installed (${PG_BIN}); run scripts/setup.sh`)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'toolmark-pg-'))
  const data = join(dir, 'data')
  const root = userInfo().uid === 0
  if (root) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }))
    chownSync(dir, id('-u'), id('-g'))
    chmodSync(dir, 0o700)
  }
  const run = (program: string, args: string[]) =>
    root
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(PG_BIN, program), ...args], { stdio: 'pipe' })
      : execFileSync(join(PG_BIN, program), args, { stdio: 'pipe' })
  const pgctl = (args: string[]) => run('pg_ctl', ['-D', data, ...args])
  run('initdb', ['-D', data, '-U', 'toolmark', '--auth=trust', '-E', 'UTF8', '--no-sync'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`
  const start = async () => {
    pgctl(['-o', options, '-l', join(dir, 'log'), '-w', 'start'])
  }
  let running = false
  const stop = async () => {
    if (!running) return
    running = false
    pgctl(['-m', 'fast', '-w', 'stop'])
  }
  const kill = () => {
    if (running) pgctl(['-m', 'immediate', 'stop'])
    rmSync(dir, { recursive: true, force: true })
  }
  cleanups.add(kill)
  await start()
  running = true
  const urlOf = (name: string) => `postgres://toolmark@127.0.0.1:${port}/${name}`
  return {
    url: urlOf('postgres'),
    port,
    urlOf,
    stop,
    async start() {
      await start()
      running = true
    },
    async destroy() {
      await stop()
      cleanups.delete(kill)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A server process started by a test (an instance of the agent server, for one). */
export interface TestProcess {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly port: number
  readonly pid: number
  /** Everything it printed, stdout and stderr. */
  readonly output: string[]
  /** Sends `signal` (default SIGTERM) and resolves once it exited. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/**
 * Starts `node <args>` in `cwd` with `env` plus `PORT` (a free port) and resolves once `ready` matches a
 * line it printed (or rejects when it exits first, or after `timeoutMs`).
 */
export async function startProcess(options: {
  cwd: string
  args: string[]
  env: Record<string, string>
  ready: RegExp
  timeoutMs?: number
}): Promise<TestProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const kill = () => child.kill('SIGKILL')
  cleanups.add(kill)
  const output: string[] = []
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  exited.then(() => cleanups.delete(kill))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`not ready after ${options.timeoutMs ?? 30_000} ms:\n${output.join('')}`))
    }, options.timeoutMs ?? 30_000)
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString('utf8'))
      if (options.ready.test(output.join(''))) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`exited before it was ready:\n${output.join('')}`))
    })
  })
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? 0,
    output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    },
  }
}
