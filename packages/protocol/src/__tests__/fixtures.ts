import { readdirSync, readFileSync } from 'node:fs'
import type { MessageDirection } from '../messages.ts'

/** One message from the fixture corpus in src/protocol/__fixtures__/{accept,reject}/{toPage,toAgent}. */
export interface Fixture {
  name: string
  expected: 'accept' | 'reject'
  direction: MessageDirection
  value: unknown
}

const root = new URL('../__fixtures__/', import.meta.url)

/** Every fixture, parsed with JSON.parse (so a `__proto__` key stays an own data property). */
export function loadFixtures(): Fixture[] {
  const fixtures: Fixture[] = []
  for (const expected of ['accept', 'reject'] as const) {
    for (const direction of ['toPage', 'toAgent'] as const) {
      const dir = new URL(`${expected}/${direction}/`, root)
      for (const file of readdirSync(dir).sort()) {
        if (!file.endsWith('.json')) continue
        const value: unknown = JSON.parse(readFileSync(new URL(file, dir), 'utf8'))
        fixtures.push({ name: `${expected}/${direction}/${file}`, expected, direction, value })
      }
    }
  }
  return fixtures
}
