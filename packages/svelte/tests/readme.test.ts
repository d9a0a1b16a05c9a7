import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8')

it("names every export of the package in the README's API table", () => {
  const index = read('../src/index.ts')
  const exported = [...index.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
    (m[1] ?? '')
      .split(',')
      .map(
        (name) =>
          name
            .replace(/^\s*type\s+/, '')
            .split(' as ')
            .pop()
            ?.trim() ?? '',
      )
      .filter(Boolean),
  )
  const readme = read('../README.md')
  const table = readme.slice(readme.indexOf('## API'))
  expect(exported.length).toBeGreaterThan(20)
  expect(exported.filter((name) => !new RegExp(`\\b${name}\\b`).test(table))).toEqual([])
})
