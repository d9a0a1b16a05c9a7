// Hostile-text benchmark: how the time of the functions that read text or schemas a client controls grows
// with the input. Each case runs at n, 2n, 4n and 8n; `growth` is t(8n) ÷ t(n): about 8 for linear work, 64
// for quadratic, and far more for a pattern that backtracks exponentially. These inputs used to stall the
// server (a code keyword before a run of `=`, a key of capitals, a long run of digits inside a streamed
// reply, a described schema with many write-only paths under one long name, an enum value full of signs).
// Printed figures only, nothing asserts. `pnpm --filter @toolmark/bench bench:hostile-text`.
import { answerValues } from '../packages/offline-agent/src/extract.ts'
import { safeCut } from '../packages/server/src/agent/stream.ts'
import { isSensitiveKey, maskText, sensitivePathsOf } from '../packages/server/src/shared/redact.ts'

interface Case {
  name: string
  /** The smallest n (characters or entries). */
  n: number
  /** The input of size n, made before the clock starts. */
  input: (n: number) => unknown
  run: (input: never) => unknown
}

const leaves = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, { writeOnly: true }]))

const cases: Case[] = [
  { name: "maskText: 'cvc' + '=' × n + 'x'", n: 4000, input: (n) => `cvc${'='.repeat(n)}x`, run: maskText },
  {
    name: "maskText: 'PIN' + ':#' × n/2, no digits",
    n: 4000,
    input: (n) => `PIN${':#'.repeat(n / 2)}`,
    run: maskText,
  },
  { name: "isSensitiveKey: 'A' × n", n: 16_000, input: (n) => 'A'.repeat(n), run: isSensitiveKey },
  {
    name: "safeCut: '1' × n + ' x'",
    n: 4000,
    input: (n) => `${'1'.repeat(n)} x`,
    run: (text: string) => safeCut(text, []),
  },
  {
    name: 'sensitivePathsOf: n write-only leaves under a 16,400-character name',
    n: 1000,
    input: (n) => ({ properties: { ['k'.repeat(16_400)]: { properties: leaves(n) } } }),
    run: sensitivePathsOf,
  },
  {
    name: 'sensitivePathsOf: n write-only leaves',
    n: 1000,
    input: (n) => ({ properties: leaves(n) }),
    run: sensitivePathsOf,
  },
  {
    name: "answerValues: enum 'ab' + '!' × n + 'cd', reply 'ab' + '-' × (n + 2) + ' cd'",
    n: 1000,
    input: (n) => [
      `ab ${'-'.repeat(n + 2)} cd`,
      { properties: { kind: { enum: [`ab${'!'.repeat(n)}cd`] } } },
    ],
    run: ([reply, schema]: [string, unknown]) => answerValues(reply, schema, ['kind']),
  },
]

/** Median milliseconds of `times` runs of `f`. */
function timed(f: () => unknown, times = 5): number {
  const runs: number[] = []
  for (let i = 0; i < times; i++) {
    const start = performance.now()
    f()
    runs.push(performance.now() - start)
  }
  return runs.sort((a, b) => a - b)[Math.floor(times / 2)]!
}

const rows: string[][] = [['case', 'n', 't(n)', 't(2n)', 't(4n)', 't(8n)', 'growth t(8n) ÷ t(n)']]
for (const c of cases) {
  const run = c.run as (input: unknown) => unknown
  const warm = c.input(c.n)
  timed(() => run(warm), 3) // warm-up
  const t = [1, 2, 4, 8].map((k) => {
    const input = c.input(c.n * k)
    return timed(() => run(input))
  })
  rows.push([
    c.name,
    String(c.n),
    ...t.map((ms) => `${ms.toFixed(2)} ms`),
    `${(t[3]! / Math.max(t[0]!, 0.01)).toFixed(1)}×`,
  ])
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
console.log(
  'hostile-text bench: time of each function at n, 2n, 4n, 8n (median of 5); linear ≈ 8×, quadratic ≈ 64×',
)
for (const r of rows) console.log(r.map((cell, i) => cell.padEnd(widths[i]!)).join('  '))
