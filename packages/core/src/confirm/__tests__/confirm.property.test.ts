import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { coversPath, flatten } from '../../schema/paths.ts'
import { createTestToolmark } from '../../testing/index.ts'
import { ok } from '../../tool/result.ts'

// Issue 3: "for random inputs and random sensitive-path sets no redacted payload ever contains a
// sensitive value and the approved run always receives the real one" — through the registry.

const leaf = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))
const { obj } = fc.letrec<{ node: unknown; arr: unknown[]; obj: Record<string, unknown> }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', maxDepth: 4 }, leaf, tie('arr'), tie('obj')),
  arr: fc.array(tie('node'), { maxLength: 3 }),
  obj: fc.dictionary(fc.constantFrom('card', 'cards', 'cvc', 'number', 'name', 'rows'), tie('node'), {
    maxKeys: 4,
  }),
}))

/** Every string becomes a unique token, so a leak is found by searching the payload's text. */
function tokenize(value: unknown, n = { i: 0 }): unknown {
  if (typeof value === 'string') return `secret-${n.i++}-x`
  if (Array.isArray(value)) return value.map((v) => tokenize(v, n))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tokenize(v, n)]))
  }
  return value
}

const scenario = obj
  .map((raw) => tokenize(raw) as Record<string, unknown>)
  .chain((input) => {
    const paths = flatten(input).map((leafPath) => leafPath.path)
    const generalized = paths.map((p) => p.replace(/\.\d+(?=\.|$)/g, '[]'))
    const candidates = [...new Set([...paths, ...generalized])].filter((p) => p !== '')
    return fc.record({
      input: fc.constant(input),
      sensitive:
        candidates.length === 0
          ? fc.constant<string[]>([])
          : fc.subarray(candidates, { maxLength: Math.min(3, candidates.length) }),
    })
  })

describe('confirmation redaction through the registry (property)', () => {
  it('cards and results never carry a sensitive value; approving the card runs with the real input', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ input, sensitive }) => {
        const tm = createTestToolmark({ dev: false })
        let received: unknown
        tm.register({
          name: 'pay',
          description: 'd',
          hints: { consequential: true },
          jsonSchema: { type: 'object' },
          sensitivePaths: sensitive,
          run: (value) => {
            received = value
            return ok()
          },
        })
        const asked = await tm.call('pay', input, { caller: 'inapp' })
        expect(asked.status).toBe('needs_confirmation')
        const [card] = tm.pendingConfirmations()
        const secrets = flatten(input)
          .filter((l) => typeof l.value === 'string' && sensitive.some((p) => coversPath(p, l.path)))
          .map((l) => l.value as string)
        const shown = JSON.stringify([asked, card?.input, card?.changes])
        for (const secret of secrets) expect(shown).not.toContain(secret)
        // The approver sends the public input back unedited (as a UI would, through JSON).
        const result = await tm.confirmPending(card!.confirmId, {
          approved: true,
          input: JSON.parse(JSON.stringify(card!.input)),
        })
        expect(result).toEqual(ok())
        expect(received).toEqual(input)
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 200) },
    )
  })
})
