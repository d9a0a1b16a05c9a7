import { expect, it } from 'vitest'
import { readmeApiGaps } from '../../../../tests/support/readme-api.ts'

it("names every export of the package in the README's API table", () => {
  const { exported, missing } = readmeApiGaps(import.meta.url, '../index.ts', '../../README.md')
  expect(exported.length).toBeGreaterThan(20)
  expect(missing).toEqual([])
})

it('has the same hooks as the Vue and Svelte adapters', () => {
  const hooks = (entry: string, readme: string) =>
    readmeApiGaps(import.meta.url, entry, readme)
      .exported.filter((name) => /^use[A-Z]/.test(name))
      .sort()
  const react = hooks('../index.ts', '../../README.md')
  expect(react).toContain('useCurrentScope')
  expect(hooks('../../../vue/src/index.ts', '../../../vue/README.md')).toEqual(react)
  expect(hooks('../../../svelte/src/index.ts', '../../../svelte/README.md')).toEqual(react)
})
