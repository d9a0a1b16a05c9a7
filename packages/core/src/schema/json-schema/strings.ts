/** String keywords: `minLength`, `maxLength` (in code points) and `pattern` (unanchored). */
import { type Family, regex, rule, sizes } from './check.ts'

/** Number of characters (code points) of a string. */
function codePoints(text: string): number {
  let n = 0
  for (const _ of text) n++
  return n
}

export const strings: Family = (schema, at, checks) => {
  sizes(schema, at, checks, { kind: 'string', suffix: 'Length', size: codePoints, noun: 'character' })
  if (schema.pattern !== undefined) {
    const pattern = regex(schema.pattern, `${at}/pattern`)
    checks.push(rule('string', (v) => !pattern.test(v) && `Expected a string matching /${pattern.source}/`))
  }
}
