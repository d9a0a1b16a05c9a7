import { existsSync, readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import type { Scenario } from '../../../packages/protocol/src/__scenarios__/scenario.ts'
import type { Target } from './driver.ts'
import { LaravelTarget } from './drivers/laravel.ts'
import { TsServerTarget } from './drivers/ts-server.ts'
import { ScriptedModel } from './model.ts'
import { play } from './runner.ts'
import { loadScenarios } from './scenarios.ts'
import { type Outcome, verdict } from './verdict.ts'

/*
 * `pnpm run conformance`: every scenario against every target, the targets side by side, each playing a
 * few scenarios at a time (each scenario has its own users and conversations). Prints one line per target
 * and `N passed, N failed`; exits 1 when a scenario fails that its target's expected-failures file does
 * not list, or a listed one passes.
 *
 * Options: --target ts-ws,laravel (default all), --only <id substring>, --concurrency <n> (default the target's),
 * --verbose (every failure with its reason, listed or not).
 */

const TARGETS: Record<string, () => Target> = {
  'ts-ws': () => new TsServerTarget({ name: 'ts-ws', transport: 'websocket', shared: false }),
  'ts-http': () => new TsServerTarget({ name: 'ts-http', transport: 'http', shared: false }),
  'ts-shared': () => new TsServerTarget({ name: 'ts-shared', transport: 'websocket', shared: true }),
  laravel: () => new LaravelTarget(),
}

const { values } = parseArgs({
  options: {
    target: { type: 'string' },
    only: { type: 'string' },
    concurrency: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
})
const names = values.target ? values.target.split(',') : Object.keys(TARGETS)
for (const name of names) if (!TARGETS[name]) throw new Error(`no target ${name}`)
const scenarios = loadScenarios().filter((s) => !values.only || s.id.includes(values.only))

const expectedFailures = (name: string): Record<string, string> => {
  const file = new URL(`../expected-failures/${name}.json`, import.meta.url)
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {}
}

/** Plays every scenario on one target, `concurrency` at a time. */
async function runTarget(target: Target, model: ScriptedModel): Promise<Outcome[]> {
  await target.start(model.url)
  const outcomes: Outcome[] = []
  const queue = [...scenarios]
  const worker = async () => {
    for (let s: Scenario | undefined = queue.shift(); s; s = queue.shift()) {
      const begin = Date.now()
      try {
        await play(s, target, model)
        outcomes.push({ id: s.id, passed: true, ms: Date.now() - begin })
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error)
        outcomes.push({ id: s.id, passed: false, error: why, ms: Date.now() - begin })
      }
    }
  }
  const concurrency = values.concurrency ? Number(values.concurrency) : target.concurrency
  try {
    await Promise.all(Array.from({ length: concurrency }, worker))
  } finally {
    await target.stop()
  }
  return outcomes
}

// A server's stray rejection (a socket cut mid-scenario, a client error) is reported, not fatal: the scenario
// it belongs to fails on its own expectations.
process.on('unhandledRejection', (error) => console.error(`unhandled rejection: ${String(error)}`))

const model = new ScriptedModel()
await model.start()
let passed = 0
let failed = 0
let problems = 0
const started = Date.now()
const lines = await Promise.all(
  names.map(async (name) => {
    const begin = Date.now()
    const target = TARGETS[name]!()
    let outcomes: Outcome[]
    try {
      outcomes = await runTarget(target, model)
    } catch (error) {
      problems++
      return `${name}: could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
    }
    const listed = values.only
      ? Object.fromEntries(Object.entries(expectedFailures(name)).filter(([id]) => id.includes(values.only!)))
      : expectedFailures(name)
    const v = verdict(outcomes, listed)
    passed += v.passed
    failed += v.failed
    problems += v.problems.length
    const seconds = ((Date.now() - begin) / 1000).toFixed(1)
    const head = `${name}: ${v.passed} passed, ${v.failed} failed (${v.expected} expected) in ${seconds} s`
    const slowest = [...outcomes].sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0)).slice(0, 5)
    const detail = values.verbose
      ? [
          ...outcomes.filter((o) => !o.passed).map((o) => `  ✗ ${o.id}: ${o.error}`),
          `  slowest: ${slowest.map((o) => `${o.id} ${o.ms} ms`).join(', ')}`,
        ]
      : v.problems.map((p) => `  ✗ ${p}`)
    return [head, ...detail].join('\n')
  }),
)
await model.close()
for (const line of lines) console.info(line)
if (problems > 0)
  console.info(
    `${problems} problem(s), each marked ✗ above (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  )
console.info(`${passed} passed, ${failed} failed`)
// Clients of stopped servers may keep timers; the verdict is in.
process.exit(problems > 0 ? 1 : 0)
