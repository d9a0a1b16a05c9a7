import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

/*
 * The demo as a user starts it (its package script through pnpm, from the repository root) and stops it
 * with Ctrl+C: the terminal sends SIGINT to the whole foreground process group, here the group the test
 * spawns pnpm in.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
let run: ChildProcess | undefined

/** Every process below `pid` (pid, command line), from `ps`. */
function descendants(pid: number): { pid: number; args: string }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? '' }))
  const found: { pid: number; args: string }[] = []
  const walk = (parent: number) => {
    for (const row of rows.filter((r) => r.ppid === parent)) {
      found.push({ pid: row.pid, args: row.args })
      walk(row.pid)
    }
  }
  walk(pid)
  return found
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

afterEach(() => {
  if (run?.pid === undefined || run.exitCode !== null || run.signalCode !== null) return
  try {
    process.kill(-run.pid, 'SIGKILL')
  } catch {} // already gone
})

describe('starting and stopping the demo', () => {
  it('Ctrl+C stops it with one line and exit 0; php -S (with its workers) and queue:work are gone', async () => {
    const child = spawn('pnpm', ['--filter', '@toolmark-apps/inertia-demo', 'start'], {
      cwd: ROOT,
      detached: true, // its own process group, as a terminal's foreground job
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    run = child
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const deadline = Date.now() + 60_000
    while (!/Inertia demo on http:\/\/\S+/.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`did not start:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const url = /Inertia demo on (http:\/\/[^/\s]+)/.exec(output)?.[1] ?? ''
    expect((await fetch(`${url}/login`)).status).toBe(401) // Laravel answers
    const php = descendants(child.pid ?? 0).filter((p) => /^php /.test(p.args))
    expect(php.some((p) => p.args.includes(' -S '))).toBe(true)
    expect(php.some((p) => p.args.includes('queue:work'))).toBe(true)
    expect(php.length).toBeGreaterThan(2) // `php -S` runs 4 workers

    const before = output.length
    process.kill(-(child.pid ?? 0), 'SIGINT')
    expect(await exit).toBe(0)
    expect(output.slice(before)).toBe('Stopped the Inertia demo (SIGINT).\n')
    expect(php.filter((p) => alive(p.pid))).toEqual([])
    await expect(fetch(`${url}/login`)).rejects.toThrow()
  }, 90_000)
})
