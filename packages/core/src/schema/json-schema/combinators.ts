/**
 * `allOf`, `anyOf`, `oneOf` (exactly one branch) and `not`. When no `anyOf`/`oneOf` branch matches,
 * the closest branch's issues are reported (the fewest, among branches that accepted the value's type
 * here), else one "Expected ..." issue at the union's path.
 */
import {
  add,
  type Check,
  type Compile,
  type Family,
  isObject,
  issuesOf,
  type MutableIssue,
  schemaList,
} from './check.ts'

function unionCheck(value: unknown, at: string, compile: Compile, exactlyOne: boolean): Check {
  const branches = schemaList(value, at, compile)
  const types = (value as unknown[]).map((s) => (isObject(s) ? s.type : undefined))
  const summary = types.every((t) => typeof t === 'string' || Array.isArray(t))
    ? `Expected ${[...new Set(types.flat())].join(' or ')}`
    : 'Value does not match any of the allowed schemas'
  return (v, p, i) => {
    let matches = 0
    let best: MutableIssue[] | undefined
    for (const branch of branches) {
      const inner = issuesOf(branch, v, p)
      if (inner.length === 0) {
        matches++
        if (!exactlyOne || matches > 1) break
        continue
      }
      // A branch that accepted the value's shape here fails only deeper down: report the closest one.
      const depth = p.length
      if (inner.every((issue) => issue.path.length > depth) && (!best || inner.length < best.length))
        best = inner
    }
    if (matches > 1) add(i, p, 'Value matches more than one schema in oneOf')
    else if (matches === 0) {
      if (best) i.push(...best)
      else add(i, p, summary)
    }
  }
}

export const combinators: Family = (schema, at, checks, compile) => {
  if (schema.allOf !== undefined) checks.push(...schemaList(schema.allOf, `${at}/allOf`, compile))
  if (schema.anyOf !== undefined) checks.push(unionCheck(schema.anyOf, `${at}/anyOf`, compile, false))
  if (schema.oneOf !== undefined) checks.push(unionCheck(schema.oneOf, `${at}/oneOf`, compile, true))
  if (schema.not !== undefined) {
    const not = compile(schema.not, `${at}/not`)
    checks.push((v, p, i) => {
      if (issuesOf(not, v, p).length === 0) add(i, p, 'Value matches a schema it must not match')
    })
  }
}
