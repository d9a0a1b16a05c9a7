import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'toolmark-main-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** `node src/main.ts` as `npm run demo` starts it, with its output collected. */
function start(env: Record<string, string>): {
  child: ChildProcess
  output: () => string
  exit: Promise<number | null>
} {
  const child = spawn(process.execPath, ['--conditions=@toolmark/source', '--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PROVIDER: 'embedded', STATIC_DIR: '/nonexistent', ...env },
  })
  let output = ''
  child.stdout!.on('data', (chunk) => {
    output += chunk
  })
  child.stderr!.on('data', (chunk) => {
    output += chunk
  })
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, output: () => output, exit }
}

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('starting and stopping', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s closes the sockets and the SQLite file, prints one line and exits 0',
    async (signal) => {
      const dataFile = join(dir, `${signal}.db`)
      const run = start({ PORT: '0', DATA_FILE: dataFile })
      await until(() => run.output().includes('Toolmark agent server on http://127.0.0.1:'))
      const url = /on (http:\/\/\S+)/.exec(run.output())![1]!
      const created = await fetch(`${url}/api/conversations`, { method: 'POST' }) // a row, so the WAL is used
      expect(created.status).toBe(201)
      const { id } = (await created.json()) as { id: string }
      const cookie = created.headers.get('set-cookie')!.split(';')[0]!
      const stream = await fetch(`${url}/api/conversations/${id}/events`, { headers: { cookie } })
      expect(stream.headers.get('content-type')).toContain('text/event-stream') // held open
      const before = run.output()
      run.child.kill(signal)
      expect(await run.exit).toBe(0)
      expect(run.output().slice(before.length)).toBe(`Stopped the agent server (${signal}).\n`)
      expect(existsSync(`${dataFile}-wal`)).toBe(false) // closed: the WAL was checkpointed and removed
    },
  )

  it('a port in use gets one clear line with the fix and exit code 1', async () => {
    const blocker: Server = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const run = start({ PORT: String(port), DATA_FILE: join(dir, 'busy.db') })
      expect(await run.exit).toBe(1)
      expect(run.output()).toBe(
        `Port ${port} on 127.0.0.1 is already in use. Stop the other server, or start with PORT=0 (any free port) or another port, e.g. PORT=${port + 1}.\n`,
      )
    } finally {
      blocker.close()
    }
  })
})
