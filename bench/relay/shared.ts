// What the relay bench's measurements share: run settings, the table every figure goes into, and
// the timing helpers. Every figure is printed next to a floor measured in the same run, as a ratio.
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

export const HOST = '127.0.0.1'
export const TOOL = 'challenges.search'
export const QUERY = 'chess'
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
]
export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url))
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** Floor and ours alternate in this many rounds (calls split evenly); rates are the rounds' median. */
export const ROUNDS = 4

// ── Table ──────────────────────────────────────────────────────────────────────────────────────────────

const rows: string[][] = []
/** A progress line on stderr (the table goes to stdout). */
export const step = (text: string) => process.stderr.write(`… ${text}\n`)
export const ms = (v: number) => (v < 1 ? `${(v * 1000).toFixed(0)} µs` : `${v.toFixed(3)} ms`)
export const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
export const rate = (v: number) => `${Math.round(v)} calls/s`

/** Adds a table row: what, figure, floor, ratio (ours / floor), goal. */
export function row(what: string, figure: string, floor = '', ratio = '', goal = ''): void {
  rows.push([what, figure, floor, ratio, goal])
}
export const times = (ours: number, floor: number) => `${(ours / floor).toFixed(2)}×`

/** Prints the table. */
export function print(): void {
  const header = ['what', 'figure', 'floor', 'ratio', 'goal']
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i]?.length ?? 0)))
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'))
  for (const r of rows) console.log(line(r))
}

// ── Statistics and timing ──────────────────────────────────────────────────────────────────────────────

/** The `p` quantile (0–1) of sorted values. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN
}

/** The median of unsorted values. */
export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  )
}

/** Runs floor and ours in turn, `ROUNDS` times each, so drift in the machine's load hits both alike. */
export async function alternate<T>(floor: () => Promise<T>, ours: () => Promise<T>): Promise<[T[], T[]]> {
  const floors: T[] = []
  const ourRuns: T[] = []
  for (let r = 0; r < ROUNDS; r++) {
    floors.push(await floor())
    ourRuns.push(await ours())
  }
  return [floors, ourRuns]
}

/** Runs `once` `n` times in a row; per-call latencies (sorted) and calls per second. */
export async function sequential(
  n: number,
  once: () => Promise<void>,
): Promise<{ sorted: number[]; perSec: number }> {
  const latencies: number[] = []
  const t0 = performance.now()
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await once()
    latencies.push(performance.now() - start)
  }
  const elapsed = performance.now() - t0
  return { sorted: latencies.sort((a, b) => a - b), perSec: n / (elapsed / 1000) }
}

/** Runs `once` `n` times with `inFlight` workers; calls per second. */
export async function pipelined(n: number, inFlight: number, once: () => Promise<void>): Promise<number> {
  let issued = 0
  const worker = async () => {
    while (issued < n) {
      issued++
      await once()
    }
  }
  const t0 = performance.now()
  await Promise.all(Array.from({ length: inFlight }, worker))
  return n / ((performance.now() - t0) / 1000)
}

/** Runs `fn` and returns its value with this process's CPU time (user + system, ms) meanwhile. */
export async function withCpu<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const before = process.cpuUsage()
  const value = await fn()
  const used = process.cpuUsage(before)
  return [value, (used.user + used.system) / 1000]
}

/** Polls `probe` every 20 ms until it returns a value. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await sleep(20)
  }
}
