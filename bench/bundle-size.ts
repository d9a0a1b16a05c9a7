// Bundle size of @toolmark/core as an app ships it: rolldown (Vite 8's bundler), minified ESM with code
// splitting, gzip level 9. Every figure is printed with its ratio to `createToolmark + ok` in a
// production build, measured in the same run; the goal is printed beside it. Nothing here asserts (the
// CI budgets are in scripts/size.mjs). Run with `pnpm --filter @toolmark/bench bench:size`.
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { rolldown } from 'rolldown'

const core = fileURLToPath(new URL('../packages/core', import.meta.url))
const KiB = 1024
const GOAL = 10 * KiB

/** Gzip bytes a page loads up front (entry and its static imports) and on demand (lazy chunks). */
async function measure(code: string, nodeEnv: string): Promise<{ up: number; lazy: number }> {
  const entry = `${core}/__bench_entry__.js`
  const bundle = await rolldown({
    input: entry,
    cwd: core,
    platform: 'browser',
    resolve: { conditionNames: ['@toolmark/source', 'import', 'module', 'browser', 'default'] },
    transform: { define: { 'process.env.NODE_ENV': JSON.stringify(nodeEnv) } },
    logLevel: 'silent',
    plugins: [
      {
        name: 'bench-entry',
        resolveId: (id) => (id === entry ? id : undefined),
        load: (id) => (id === entry ? code : undefined),
      },
    ],
  })
  const { output } = await bundle.generate({ format: 'esm', minify: true })
  await bundle.close()
  let up = 0
  let lazy = 0
  for (const chunk of output) {
    if (chunk.type !== 'chunk') continue
    const size = gzipSync(chunk.code, { level: 9 }).length
    if (chunk.isDynamicEntry) lazy += size
    else up += size
  }
  return { up, lazy }
}

const cases: [string, string, string][] = [
  [
    'createToolmark + ok (production build)',
    "export { createToolmark, ok } from '@toolmark/core'",
    'production',
  ],
  [
    'createToolmark + ok (development build)',
    "export { createToolmark, ok } from '@toolmark/core'",
    'development',
  ],
  [
    'createToolmark + ok + fromJsonSchema (compiled at registration)',
    "export { createToolmark, ok, fromJsonSchema } from '@toolmark/core'",
    'production',
  ],
  ['main entry, everything (production build)', "export * from '@toolmark/core'", 'production'],
]

const results = []
for (const [name, code, env] of cases) results.push({ name, ...(await measure(code, env)) })
const floor = results[0]!.up
const kib = (n: number) => `${(n / KiB).toFixed(2)} KiB`
console.log('\nBundle size (gzip), ratio to createToolmark + ok in a production build')
for (const r of results) {
  const lazy = r.lazy > 0 ? ` (+ ${kib(r.lazy)} on demand)` : ''
  console.log(`  ${r.name.padEnd(66)} ${kib(r.up).padStart(10)}  ×${(r.up / floor).toFixed(2)}${lazy}`)
}
console.log(`  goal for createToolmark + ok: ${kib(GOAL)} (now ×${(floor / GOAL).toFixed(2)} of it)`)
