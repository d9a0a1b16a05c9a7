/*
 * A target's verdict: its scenario outcomes held against its expected-failures file. A scenario that fails
 * without being listed fails the run; so does a listed scenario that passes (the list only shrinks) and a
 * listed id that names no scenario.
 */

/** One scenario's outcome on one target. */
export interface Outcome {
  id: string
  passed: boolean
  /** Why it failed. */
  error?: string
  /** How long it took. */
  ms?: number
}

/** What a target's run adds up to. */
export interface Verdict {
  passed: number
  failed: number
  /** Failures the expected-failures file lists. */
  expected: number
  /** Problems that fail the run, one line each. */
  problems: string[]
}

/** Holds `outcomes` against `expected` (scenario id → reason). */
export function verdict(outcomes: readonly Outcome[], expected: Readonly<Record<string, string>>): Verdict {
  const problems: string[] = []
  const ran = new Set(outcomes.map((o) => o.id))
  let passed = 0
  let failed = 0
  let listed = 0
  for (const o of outcomes) {
    const reason = expected[o.id]
    if (o.passed) {
      passed++
      if (reason !== undefined)
        problems.push(`${o.id} passes but is listed as an expected failure: remove it`)
    } else {
      failed++
      if (reason === undefined) problems.push(`${o.id} failed: ${o.error ?? 'no reason'}`)
      else listed++
    }
  }
  for (const id of Object.keys(expected))
    if (!ran.has(id)) problems.push(`${id} is listed as an expected failure but no such scenario ran`)
  return { passed, failed, expected: listed, problems }
}
