/**
 * Object keywords: `properties`, `required`, `patternProperties`, `additionalProperties` (boolean or
 * schema), `minProperties`, `maxProperties`. Own properties only; one holding `undefined` is absent.
 */
import { add, type Check, type Compile, descend, type Family, fail, isObject, regex, sizes } from './check.ts'

/** `properties`/`patternProperties`: each entry's key and compiled schema. */
function schemaMap(value: unknown, at: string, compile: Compile): [string, Check][] {
  if (value === undefined) return []
  if (!isObject(value)) throw fail(at, 'expected an object')
  return Object.keys(value).map((k) => [k, compile(value[k], `${at}/${k}`)])
}

export const objects: Family = (schema, at, checks, compile) => {
  const { required, additionalProperties: extra } = schema
  const props = schemaMap(schema.properties, `${at}/properties`, compile)
  if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))) {
    throw fail(`${at}/required`, 'expected an array of strings')
  }
  const patterns = schemaMap(schema.patternProperties, `${at}/patternProperties`, compile).map(
    ([k, check]) => [regex(k, `${at}/patternProperties`), check] as const,
  )
  const known = new Set(props.map(([k]) => k))
  const needed = (required as string[] | undefined) ?? []
  const others: Check | undefined =
    extra === undefined || extra === true
      ? undefined
      : extra === false
        ? (_v, p, i) => add(i, p, 'Unknown property')
        : compile(extra, `${at}/additionalProperties`)
  if (props.length > 0 || needed.length > 0 || patterns.length > 0 || others) {
    checks.push((v, p, i) => {
      if (!isObject(v)) return
      for (const key of needed) {
        if (v[key] === undefined || !Object.hasOwn(v, key)) add(i, p, 'Missing required property', key)
      }
      for (const [key, check] of props) {
        const value = v[key]
        if (value !== undefined && Object.hasOwn(v, key)) descend(check, value, key, p, i)
      }
      if (patterns.length === 0 && !others) return
      for (const key of Object.keys(v)) {
        const value = v[key]
        if (value === undefined) continue
        let matched = known.has(key)
        for (const [re, check] of patterns) {
          if (!re.test(key)) continue
          matched = true
          descend(check, value, key, p, i)
        }
        if (!matched && others) descend(others, value, key, p, i)
      }
    })
  }
  const count = (v: Record<string, unknown>) => Object.keys(v).filter((k) => v[k] !== undefined).length
  sizes(schema, at, checks, { kind: 'object', suffix: 'Properties', size: count, noun: 'property' })
}
