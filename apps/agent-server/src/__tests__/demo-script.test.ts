import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

/*
 * `npm run demo` (scripts/demo.sh) stopped with Ctrl+C: the terminal sends SIGINT to every process
 * of its foreground group (npm or pnpm, the shell, demo.sh), and the server's last line names it.
 * The install and build steps are skipped: a stand-in `pnpm` first on PATH answers them (and hands
 * `pnpm demo` itself to the real pnpm); the server serves a one-file STATIC_DIR.
 */

const repo = fileURLToPath(new URL('../../../..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'toolmark-demo-script-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const bin = join(dir, 'bin')
const site = join(dir, 'site')
mkdirSync(bin)
mkdirSync(site)
writeFileSync(join(site, 'index.html'), '<!doctype html><title>demo</title>')
const realPnpm = execFileSync('sh', ['-c', 'command -v pnpm'], { encoding: 'utf8' }).trim()
writeFileSync(
  join(bin, 'pnpm'),
  `#!/bin/sh
case "$1" in
  --version) echo 10.34.9 ;;
  install|--filter) exit 0 ;;
  *) exec "${realPnpm}" "$@" ;;
esac
`,
)
chmodSync(join(bin, 'pnpm'), 0o755)

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Starts `command` in a process group of its own, as a terminal runs a foreground job. */
function run(command: string[], port: number) {
  const child: ChildProcess = spawn(command[0]!, command.slice(1), {
    cwd: repo,
    detached: true,
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      PORT: String(port),
      STATIC_DIR: site,
      DATA_FILE: join(dir, `${port}.db`),
      PROVIDER: 'embedded',
    },
  })
  let output = ''
  child.stdout!.on('data', (chunk) => {
    output += chunk
  })
  child.stderr!.on('data', (chunk) => {
    output += chunk
  })
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return { child, output: () => output, exit }
}

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} not reached`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Whether something still accepts connections on the port. */
const listening = (port: number): Promise<boolean> =>
  fetch(`http://127.0.0.1:${port}/`).then(
    () => true,
    () => false,
  )

describe('npm run demo, stopped with Ctrl+C', () => {
  it.each([
    ['bash scripts/demo.sh', ['bash', 'scripts/demo.sh']],
    ['npm run demo', ['npm', 'run', 'demo']],
    ['pnpm demo', [join(bin, 'pnpm'), 'demo']],
  ])(
    '%s: the server says SIGINT stopped it, and is gone',
    async (_, command) => {
      const port = await freePort()
      const demo = run(command, port)
      try {
        await until(() => demo.output().includes('Press Ctrl+C to stop.'), 'the demo banner')
        // Ctrl+C: SIGINT to the whole foreground process group.
        process.kill(-demo.child.pid!, 'SIGINT')
        await until(() => demo.output().includes('Stopped the agent server'), 'the stop line', 15_000)
        await demo.exit
        expect(demo.output()).toContain('Stopped the agent server (SIGINT).\n')
        expect(demo.output()).not.toContain('SIGTERM')
        expect(await listening(port)).toBe(false)
      } finally {
        // A failed run: SIGTERM makes demo.sh stop the server (which has a process group of its own).
        if (demo.child.exitCode === null && demo.child.signalCode === null) {
          process.kill(-demo.child.pid!, 'SIGTERM')
          await demo.exit
        }
      }
    },
    90_000,
  )
})
