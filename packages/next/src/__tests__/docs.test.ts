// @vitest-environment node
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8')

/** The code blocks that start with `// app/<file>`, by file. */
function blocks(markdown: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const match of markdown.matchAll(/```tsx\n\/\/ (app\/\S+)\n([\s\S]*?)```/g))
    found.set(match[1]!, match[2]!)
  return found
}

describe.each(['../../README.md', '../../../../docs/framework/next.md'])('%s', (doc) => {
  const shown = blocks(read(doc))

  it('shows the root layout, the provider file and a page, each at most 36 lines', () => {
    expect([...shown.keys()].sort()).toEqual(['app/layout.tsx', 'app/providers.tsx', 'app/settings/page.tsx'])
    for (const code of shown.values()) expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(36)
  })

  it('shows exactly the example files that typecheck compiles', () => {
    for (const [file, code] of shown) expect(code).toBe(read(`../../examples/${file}`))
  })
})
