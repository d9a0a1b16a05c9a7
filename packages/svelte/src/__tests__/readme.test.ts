import { expect, it } from 'vitest'
import { readmeApiGaps } from '../../../../tests/support/readme-api.ts'

it("names every export of the package in the README's API table", () => {
  const { exported, missing } = readmeApiGaps(import.meta.url, '../index.ts', '../../README.md')
  expect(exported.length).toBeGreaterThan(20)
  expect(missing).toEqual([])
})
