import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { FIXTURES } from '../runner.ts'
import { loadScenarios } from '../scenarios.ts'

const scenarios = loadScenarios()

describe('the extension scenarios', () => {
  it('play every page → agent reject fixture of the offer and of progress', () => {
    const fixtures = readdirSync(new URL('extensions/reject/toAgent/', FIXTURES))
      .map((f) => f.slice(0, -5))
      .filter((f) => f.startsWith('offer-') || f.startsWith('progress-'))
    expect(fixtures.length).toBeGreaterThan(10)
    const played = scenarios
      .filter((s) => s.id.startsWith('extension-reject-fixture/'))
      .map((s) => s.id.slice('extension-reject-fixture/'.length))
    expect(played.sort()).toEqual(fixtures.sort())
  })

  it('cover the offer, the acceptance and every server rule of progress', () => {
    const ids = scenarios.map((s) => s.id)
    for (const id of [
      'extensions-accept',
      'extensions-never-offered',
      'progress-reaches-chat',
      'progress-after-result',
      'progress-unknown-id',
      'progress-mismatch',
      'progress-rate-limit',
    ])
      expect(ids).toContain(id)
  })
})
