// Forms and tour benchmarks in Chromium: each figure beside a floor measured in the same page
// (the bare DOM work by hand), as a ratio. Nothing asserts: goals are printed. `pnpm bench:forms`.
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const bundle = await build({
  entryPoints: [fileURLToPath(new URL('./forms-page.ts', import.meta.url))],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  write: false,
  conditions: ['@toolmark/source'],
  logLevel: 'silent',
})
const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
})
const page = await browser.newPage()
await page.setContent('<!doctype html><html><body></body></html>')
await page.addScriptTag({ type: 'module', content: bundle.outputFiles[0]!.text })
await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)

type Bench = Record<'scan50' | 'fill20' | 'tourStep', () => Promise<[number, number]>>
const run = (name: keyof Bench) =>
  page.evaluate((n) => (window as unknown as { bench: Bench }).bench[n](), name)

const rows: string[][] = []
const ms = (x: number) => `${x.toFixed(3)} ms`
for (const [name, what, goal] of [
  ['scan50', 'scanForm, 50 fields (median)', '≤ 2 ms'],
  ['fill20', 'tm.call(<form>.fill), 20 fields with events (median)', '≤ 5 ms'],
  ['tourStep', 'tour step transition, script work (median)', '≤ 16 ms'],
] as const) {
  const [ours, floor] = await run(name)
  rows.push([what, ms(ours), ms(floor), `${(ours / floor).toFixed(2)}×`, goal])
}
await browser.close()

const head = ['what (Chromium)', 'figure', 'floor', 'ratio', 'goal']
const widths = head.map((_, i) => Math.max(...[head, ...rows].map((r) => r[i]!.length)))
const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')
console.log(line(head))
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'))
for (const r of rows) console.log(line(r))
