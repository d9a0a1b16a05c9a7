import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without types
import { expected, FILES } from '../scripts/guide-files.mjs'

describe('the Laravel reference guide is the code the demo runs', () => {
  it('every php block of the guide is byte for byte a file of laravel/ (Laravel 8 glue aside)', () => {
    const files = expected() as Map<string, string>
    expect(files.size).toBe((FILES as (string | null)[]).filter(Boolean).length)
    for (const [file, code] of files) expect(readFileSync(file, 'utf8'), file).toBe(code)
  })
})
