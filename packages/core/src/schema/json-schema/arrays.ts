/**
 * Array keywords: `minItems`, `maxItems`, `items` as one schema or a tuple (`prefixItems`, or
 * draft-07's `items` list with `additionalItems` for the rest), and `uniqueItems`.
 */
import { descend, type Family, fail, rule, schemaList, sizes } from './check.ts'
import { canonical } from './values.ts'

export const arrays: Family = (schema, at, checks, compile) => {
  sizes(schema, at, checks, { kind: 'array', suffix: 'Items', size: (v) => v.length, noun: 'item' })
  const { uniqueItems } = schema
  if (uniqueItems !== undefined && typeof uniqueItems !== 'boolean') {
    throw fail(`${at}/uniqueItems`, 'expected a boolean')
  }
  const tuple = schema.prefixItems !== undefined ? 'prefixItems' : Array.isArray(schema.items) ? 'items' : ''
  const restKey = tuple === 'items' ? 'additionalItems' : 'items'
  const prefix = tuple ? schemaList(schema[tuple], `${at}/${tuple}`, compile) : []
  const rest = schema[restKey] === undefined ? undefined : compile(schema[restKey], `${at}/${restKey}`)
  if (prefix.length > 0 || rest) {
    checks.push((v, p, i) => {
      if (!Array.isArray(v)) return
      for (let k = 0; k < v.length; k++) {
        const check = prefix[k] ?? rest
        if (!check) break
        descend(check, v[k], k, p, i)
      }
    })
  }
  if (uniqueItems) {
    checks.push(
      rule('array', (v) => {
        const seen = new Map<string, number>()
        for (let k = 0; k < v.length; k++) {
          const key = canonical(v[k])
          const first = seen.get(key)
          if (first !== undefined) return `Expected unique items (items ${first} and ${k} are equal)`
          seen.set(key, k)
        }
      }),
    )
  }
}
