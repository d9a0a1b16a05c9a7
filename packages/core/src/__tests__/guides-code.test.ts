import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

/*
 * The TypeScript blocks of the forms and tours guides are copies of example files that the packages'
 * `tsc` checks (core's src/__tests__/guides, and the React, Vue and Inertia guide examples), so every block
 * compiles. This test keeps the copies identical.
 */

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8').trimEnd()
const blocks = (doc: string) => [...doc.matchAll(/```tsx?\n([\s\S]*?)\n```/g)].map((m) => m[1])

const EXAMPLES = {
  '../../../../docs/guides/forms.md': [
    '../../../forms/src/__tests__/guides/forms-core.ts',
    '../../../forms/src/__tests__/guides/forms-dom.ts',
    '../../../forms/src/__tests__/guides/forms-dom-submit.ts',
    '../../../forms/src/__tests__/guides/forms-wizard.ts',
    '../../../react/src/forms/__tests__/guide.example.tsx',
    '../../../vue/src/forms/__tests__/guide.example.ts',
    '../../../inertia/src/__tests__/forms-guide.example.tsx',
    '../../../bridge/src/__tests__/guides/server-tools.ts',
  ],
  '../../../../docs/guides/tours.md': ['../../../tour/src/__tests__/guides/tours.ts'],
}

describe('guides: code blocks compile', () => {
  for (const [doc, files] of Object.entries(EXAMPLES)) {
    it(`${doc.split('/').pop()} shows the checked example files, each under 30 lines`, () => {
      const code = files.map(read)
      expect(blocks(read(doc))).toEqual(code)
      for (const c of code) expect(c.split('\n').length).toBeLessThan(30)
    })
  }
})
