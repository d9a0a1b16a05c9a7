import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { REENTER_SENSITIVE } from '../../codes.ts'
import { coversPath, flatten, getPath, parsePath, setPath } from '../../schema/paths.ts'
import { REDACTED, redactInput } from '../../tool/redact.ts'
import { redactChanges } from '../../tool/redact-changes.ts'
import { restoreRedacted } from '../../tool/redact-edit.ts'

type Node = { path: string; segments: { key: string; index: boolean }[]; value: unknown }

const leaf = fc.oneof(fc.string(), fc.string(), fc.integer(), fc.boolean(), fc.constant(null))
const { node } = fc.letrec<{ node: unknown; arr: unknown[]; obj: Record<string, unknown> }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', maxDepth: 5 }, leaf, tie('arr'), tie('obj')),
  arr: fc.array(tie('node'), { maxLength: 4 }),
  obj: fc.dictionary(fc.constantFrom('a', 'b', 'card', 'cards', 'cvc', 'name', 'rows'), tie('node'), {
    maxKeys: 4,
  }),
}))

/** Replaces every string with a unique token, so a leaked secret can be found with a text search. */
function tokenize(value: unknown, counter = { n: 0 }): unknown {
  if (typeof value === 'string') return `tok-${counter.n++}`
  if (Array.isArray(value)) return value.map((v) => tokenize(v, counter))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = tokenize(v, counter)
    return out
  }
  return value
}

/** Every position below the root with its segments (and whether each is an array index). */
function nodes(value: unknown, segments: Node['segments'] = [], out: Node[] = []): Node[] {
  if (segments.length > 0) out.push({ path: segments.map((s) => s.key).join('.'), segments, value })
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      nodes(value[i], [...segments, { key: String(i), index: true }], out)
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) nodes(v, [...segments, { key: k, index: false }], out)
  }
  return out
}

/** A random input and sensitive patterns drawn from its own paths, some indices generalized to `[]`. */
const scenario = node
  .map((raw) => tokenize(raw))
  .chain((input) => {
    const all = nodes(input)
    const pattern = (n: Node) =>
      fc
        .tuple(
          fc.array(fc.boolean(), { minLength: n.segments.length, maxLength: n.segments.length }),
          fc.boolean(),
        )
        .map(([generalize, compact]) => {
          const text = n.segments.map((s, i) => (s.index && generalize[i] ? '[]' : s.key)).join('.')
          return compact ? text.replaceAll('.[]', '[]') : text
        })
    const picks =
      all.length === 0 ? fc.constant([] as Node[]) : fc.subarray(all, { maxLength: Math.min(4, all.length) })
    return fc.record({
      input: fc.constant(input),
      paths: picks.chain((chosen) =>
        fc.tuple(...chosen.map(pattern), fc.constantFrom([], ['zz'], ['rows[].cvc'])),
      ),
      pick: fc.nat(),
    })
  })
  .map(({ input, paths, pick }) => ({ input, paths: paths.flat() as string[], pick }))

const covered = (paths: readonly string[], path: string) => paths.some((p) => coversPath(p, path))
const tokensIn = (leaves: { value: unknown }[]) =>
  leaves.map((l) => l.value).filter((v): v is string => typeof v === 'string')

/** True when the payload shows the placeholder at `path` or at one of its ancestors. */
function hiddenAt(payload: unknown, path: string): boolean {
  const segments = parsePath(path)
  for (let i = 0; i <= segments.length; i++) {
    if (getPath(payload, segments.slice(0, i).join('.')) === REDACTED) return true
  }
  return false
}

describe('redaction properties', () => {
  it('never puts a sensitive value in a payload, and keeps every other value', () => {
    fc.assert(
      fc.property(scenario, ({ input, paths }) => {
        const leaves = flatten(input)
        const secret = leaves.filter((l) => covered(paths, l.path))
        const open = leaves.filter((l) => !covered(paths, l.path))
        const { value, readable } = redactInput(input, paths)
        expect(readable).toBe(true)
        const text = JSON.stringify(value) ?? ''
        for (const token of tokensIn(secret)) expect(text).not.toContain(`"${token}"`)
        for (const token of tokensIn(open)) expect(text).toContain(`"${token}"`)
        for (const l of secret) expect(hiddenAt(value, l.path)).toBe(true)
        for (const l of open) expect(getPath(value, l.path)).toEqual(l.value)

        // Changes at every position (leaves, rows, containers and the root) leak nothing either.
        const positions = [{ path: '', value: input }, ...nodes(input)]
        const changes = redactChanges(
          positions.map((p) => ({ path: p.path, before: p.value, after: p.value })),
          paths,
        )
        const changeText = JSON.stringify(changes)
        for (const token of tokensIn(secret)) expect(changeText).not.toContain(`"${token}"`)
        for (const token of tokensIn(open)) expect(changeText).toContain(`"${token}"`)
        changes.forEach((c, i) => {
          for (const l of secret) {
            const below = positions[i]!.path === '' ? l.path : `${positions[i]!.path}.`
            if (l.path === positions[i]!.path || l.path.startsWith(below)) {
              const rel = l.path.slice(positions[i]!.path === '' ? 0 : positions[i]!.path.length + 1)
              expect(hiddenAt(c.after, rel)).toBe(true)
            }
          }
        })
      }),
      { numRuns: 300 },
    )
  })

  it('gives the approved run exactly the real input when the payload comes back unedited', () => {
    fc.assert(
      fc.property(scenario, ({ input, paths }) => {
        const payload = JSON.parse(JSON.stringify(redactInput(input, paths).value) ?? 'null')
        expect(restoreRedacted(payload, input, paths)).toEqual({ ok: true, value: input })
      }),
      { numRuns: 300 },
    )
  })

  it('keeps secrets restored around a non-sensitive edit, except in the edited rows', () => {
    fc.assert(
      fc.property(scenario, ({ input, paths, pick }) => {
        const open = flatten(input).filter((l) => !covered(paths, l.path))
        fc.pre(open.length > 0)
        const target = open[pick % open.length]!.path
        const redacted = redactInput(input, paths)
        const edited = setPath(JSON.parse(JSON.stringify(redacted.value) ?? 'null'), target, 'edited-value')
        // Rows that now differ: every array element on the way to the edited leaf.
        const segments = parsePath(target)
        const rows: string[] = []
        for (let i = 1; i <= segments.length; i++) {
          if (Array.isArray(getPath(input, segments.slice(0, i - 1).join('.')))) {
            rows.push(segments.slice(0, i).join('.'))
          }
        }
        const refused = redacted.redactedPaths.filter((p) =>
          rows.some((r) => p === r || p.startsWith(`${r}.`)),
        )
        const result = restoreRedacted(edited, input, paths)
        if (refused.length === 0) {
          expect(result).toEqual({ ok: true, value: setPath(input, target, 'edited-value') })
        } else {
          expect(result).toEqual({
            ok: false,
            issues: refused.map((path) => ({ path, message: REENTER_SENSITIVE })),
          })
        }
      }),
      { numRuns: 300 },
    )
  })
})
