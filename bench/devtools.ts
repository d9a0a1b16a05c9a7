// Devtools benchmark: what `tm.call` costs with @toolmark/devtools installed but its panel closed
// (the bound: ratio ≤ 1.02 against no devtools), with its recorder attached (the panel
// open), and what a call refused before it starts costs with the panel closed. Each figure next
// to a floor measured in the same run, in alternating batches. Nothing asserts; the goal is
// printed beside the figure. `pnpm bench` runs it.
import { ok } from '@toolmark/core'
import { createTestToolmark } from '@toolmark/core/testing'
import { devtools } from '@toolmark/devtools'
import { createRecorder } from '@toolmark/devtools/recorder'
import * as z from 'zod'
import { compare } from './compare.ts'

// Node has no window: the entry hook only adds a keydown listener, which a stand-in takes.
const g = globalThis as { addEventListener?: unknown; removeEventListener?: unknown }
g.addEventListener ??= () => {}
g.removeEventListener ??= () => {}

const searchTool = {
  name: 'search',
  description: 'Search',
  hints: { readOnly: true },
  input: z.object({ query: z.string() }),
  run: ({ query }: { query: string }) => ok({ query }),
}

const us = (ms: number): string => `${(ms * 1000).toFixed(3)} µs`

const plain = createTestToolmark({ dev: false })
plain.register(searchTool)
const closed = createTestToolmark({ dev: false })
closed.register(searchTool)
closed.use(devtools())
const open = createTestToolmark({ dev: false })
open.register(searchTool)
open.use((host) => createRecorder(host).dispose)

const control = createTestToolmark({ dev: false })
control.register(searchTool)

const call = (tm: typeof plain) => () => tm.call('search', { query: 'robotics' }, { caller: 'inapp' })
// Warm every registry up first: the first comparison of a run otherwise measures the JIT.
for (const tm of [plain, closed, open, control]) for (let i = 0; i < 20_000; i++) await call(tm)()
const [e, f] = await compare(call(plain), call(control))
const [a, b] = await compare(call(plain), call(closed))
const [c, d] = await compare(call(plain), call(open))
// A call refused before it starts (unknown tool): with the panel closed nobody observes `blocked`,
// so the refusal costs what it cost before the devtools could explain it.
const refuse = (tm: typeof plain) => () => tm.call('nope', {}, { caller: 'inapp' })
// A refusal takes a tenth of a call: ten times the batch, so a batch lasts as long.
const [rPlain, rClosed] = await compare(refuse(plain), refuse(closed), 20_000)
console.log('| what | per call | floor | ratio | goal |')
console.log('| --- | --- | --- | --- | --- |')
console.log(
  `| tm.call, a second registry without devtools (the noise) | ${us(f)} | ${us(e)} | ${(f / e).toFixed(3)}× | |`,
)
console.log(
  `| tm.call, devtools installed, panel closed | ${us(b)} | ${us(a)} | ${(b / a).toFixed(3)}× | ≤ 1.02× |`,
)
console.log(
  `| tm.call, devtools recorder attached (panel open) | ${us(d)} | ${us(c)} | ${(d / c).toFixed(3)}× | |`,
)
console.log(
  `| tm.call refused (unknown tool), devtools installed, panel closed | ${us(rClosed)} | ${us(rPlain)} | ${(rClosed / rPlain).toFixed(3)}× | ≤ 1.02× |`,
)
