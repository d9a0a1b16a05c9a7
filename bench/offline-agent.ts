// The offline agent's planning time against the message's size: one planning step (the first of a
// turn) for messages of 1 KiB to 1 MiB, as shipped (each text cut to MAX_TEXT before planning) and
// with the cut lifted (the planner's own cost per character). Nothing asserts: the time per KiB
// shows whether the cost grows with the text alone. `pnpm --filter @toolmark/bench bench:offline-agent`.
import { PAGE_DESCRIBE_TOOL, pageCallTool } from '@toolmark/protocol'
import { MAX_TEXT } from '../packages/offline-agent/src/bounds.ts'
import { planWithin } from '../packages/offline-agent/src/embedded.ts'
import type { LlmTool, ProviderRequest } from '../packages/offline-agent/src/types.ts'

// The Vite demo's challenges page, as its manifest summary (names, titles, descriptions, hints).
const manifest = [
  {
    name: 'app.navigate',
    llmName: 'app__navigate',
    title: 'Open page',
    description:
      'Open (go to, navigate to) another page of the app: "challenges" (the challenges list: search, create and delete challenges, read their notes) or "settings" (account settings: update the payment card). Tools of the other page appear after navigating.',
    hints: { readOnly: true },
  },
  {
    name: 'challenges.search',
    llmName: 'challenges__search',
    title: 'Search challenges',
    description:
      'Search the challenges list by keyword and return the matching challenges (id, name, description). Use it to find or look up challenges; an empty query lists them all.',
    hints: { readOnly: true },
  },
  {
    name: 'challenges.create',
    llmName: 'challenges__create',
    title: 'Create challenge',
    description:
      'Create a new challenge with a name and an optional description. Use it when the user asks to add, create or start a new challenge.',
    hints: { consequential: true },
  },
  {
    name: 'challenges.delete',
    llmName: 'challenges__delete',
    title: 'Delete challenge',
    description:
      'Delete (remove) one challenge by its exact name. The user must approve it, and can undo it from the page.',
    hints: { destructive: true },
  },
]
const tools: LlmTool[] = [pageCallTool(manifest), PAGE_DESCRIBE_TOOL as LlmTool]

/** A message of `kib` KiB: requests and words, the kind of text a user might paste. */
function message(kib: number): string {
  const unit =
    'please create a challenge called "Kite building" and then search for chess, delete the challenge Marathon Training; what are the notes of Chess Openings? serch chalenges setings '
  return unit.repeat(Math.ceil((kib * 1024) / unit.length)).slice(0, kib * 1024)
}

function time(text: string, limit: number): number {
  const request: ProviderRequest = { system: '', messages: [{ role: 'user', text }], tools, manifest }
  const runs: number[] = []
  const deadline = performance.now() + 2000
  do {
    const start = performance.now()
    planWithin(request, limit)
    runs.push(performance.now() - start)
  } while (runs.length < 3 || (runs.length < 25 && performance.now() < deadline))
  return runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)]!
}

// Warm up (the JIT), so the first size measured is not the slowest.
for (let i = 0; i < 20; i++) time(message(4), MAX_TEXT)

const rows: string[][] = []
for (const [label, limit] of [
  [`as shipped (cut at MAX_TEXT = ${MAX_TEXT} characters)`, MAX_TEXT],
  ['cut lifted (the planner on the whole text)', Number.POSITIVE_INFINITY],
] as const) {
  for (const kib of [1, 16, 256, 1024]) {
    const ms = time(message(kib), limit)
    rows.push([label, `${kib} KiB`, `${ms.toFixed(2)} ms`, `${(ms / kib).toFixed(3)} ms/KiB`])
  }
}
const head = ['planner', 'message', 'plan (median)', 'per KiB']
const widths = head.map((_, i) => Math.max(...[head, ...rows].map((r) => r[i]!.length)))
const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')
console.log(line(head))
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'))
for (const r of rows) console.log(line(r))
