/**
 * `$ref` to a local JSON pointer (`#`, `#/$defs/name`, `#/definitions/name`): each pointer is compiled
 * once, so recursive schemas work; a remote `$ref`, one that does not resolve, or a loop that never
 * descends into the value throws.
 */
import { type Check, type Family, fail, isObject, NOOP, type Obj } from './check.ts'

function resolvePointer(ref: string, at: string, root: unknown): unknown {
  const text = JSON.stringify(ref)
  if (ref !== '#' && !ref.startsWith('#/'))
    throw fail(at, `unsupported $ref ${text} (only local #/... pointers)`)
  let target = root
  for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    if (typeof target !== 'object' || target === null || !Object.hasOwn(target, key)) {
      throw fail(at, `$ref ${text} does not resolve`)
    }
    target = (target as Obj)[key]
  }
  return target
}

/**
 * `$ref` within `root`: each pointer is compiled once, and the check defers to it, so recursion
 * works.
 */
export function refs(root: Obj): Family {
  const compiled = new Map<string, Check>()
  return (schema, at, checks, compile) => {
    const value = schema.$ref
    if (value === undefined) return
    if (typeof value !== 'string') throw fail(`${at}/$ref`, 'expected a string')
    let check = compiled.get(value)
    if (!check) {
      let target = NOOP
      check = (v, p, i) => target(v, p, i)
      compiled.set(value, check)
      target = compile(resolvePointer(value, `${at}/$ref`, root), value)
    }
    checks.push(check)
  }
}

/** Rejects `$ref`/`allOf`/`anyOf`/`oneOf`/`not` chains that come back to a schema without descending. */
export function assertNoLoop(root: Obj): void {
  const done = new Set<Obj>()
  const active = new Set<Obj>()
  const queue: unknown[] = [root]
  const visit = (schema: unknown): void => {
    if (!isObject(schema) || done.has(schema)) return
    if (active.has(schema))
      throw new TypeError('Invalid JSON Schema: a $ref loop never descends into the value')
    active.add(schema)
    if (typeof schema.$ref === 'string') visit(resolvePointer(schema.$ref, '$ref', root))
    for (const s of [schema.allOf, schema.anyOf, schema.oneOf, schema.not].flat()) visit(s)
    active.delete(schema)
    done.add(schema)
    queue.push(
      ...[schema.items, schema.additionalItems, schema.additionalProperties, schema.prefixItems].flat(),
    )
    for (const map of [schema.properties, schema.patternProperties]) {
      if (isObject(map)) queue.push(...Object.values(map))
    }
  }
  while (queue.length > 0) visit(queue.pop())
}
