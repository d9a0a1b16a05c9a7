import { readdirSync, readFileSync } from 'node:fs'
import type { Scenario, ScenarioTemplate } from '../../../packages/protocol/src/__scenarios__/scenario.ts'
import { FIXTURES } from './runner.ts'

/** Where the scenario files live. */
export const SCENARIOS = new URL('../../../packages/protocol/src/__scenarios__/', import.meta.url)

/** The key that says what a step does (see ScenarioStep): exactly one per step. */
const ACTIONS = new Set([
  'open',
  'send',
  'sendFixture',
  'confirm',
  'receive',
  'nothing',
  'leave',
  'kept',
  'say',
  'model',
  'rejected',
  'wait',
  'stored',
  'chat',
  'chatProgress',
])

/** Replaces every string `$fixture` in a value. */
function withFixture<T>(value: T, fixture: string): T {
  return JSON.parse(JSON.stringify(value), (_key, v: unknown) => (v === '$fixture' ? fixture : v)) as T
}

/** The scenario files (every .json of the folder but the schema), sorted. */
export function scenarioFiles(): string[] {
  return readdirSync(SCENARIOS)
    .filter((f) => f.endsWith('.json') && !f.endsWith('.schema.json'))
    .sort()
}

/** Every scenario, templates played once per fixture, sorted by id; throws on a repeated id. */
export function loadScenarios(): Scenario[] {
  const out: Scenario[] = []
  for (const file of scenarioFiles()) {
    const scenario = JSON.parse(readFileSync(new URL(file, SCENARIOS), 'utf8')) as Scenario | ScenarioTemplate
    if (!('eachFixtureOf' in scenario)) {
      out.push(scenario)
      continue
    }
    const { eachFixtureOf, except = {}, fixturesMatching, ...template } = scenario
    const folder = eachFixtureOf.endsWith('/') ? eachFixtureOf : `${eachFixtureOf}/`
    const matching = new RegExp(fixturesMatching ?? '')
    const fixtures = readdirSync(new URL(folder, FIXTURES)).filter(
      (f) => f.endsWith('.json') && matching.test(f.slice(0, -5)),
    )
    for (const name of Object.keys(except))
      if (!fixtures.includes(`${name}.json`))
        throw new Error(`${template.id} excepts ${name}, no such fixture`)
    for (const fixture of fixtures.sort().filter((f) => except[f.slice(0, -5)] === undefined))
      out.push({ ...withFixture(template, folder + fixture), id: `${template.id}/${fixture.slice(0, -5)}` })
  }
  const ids = new Set<string>()
  for (const { id, steps } of out) {
    if (ids.has(id)) throw new Error(`two scenarios are called ${id}`)
    ids.add(id)
    for (const [i, step] of steps.entries()) {
      const actions = Object.keys(step).filter((key) => ACTIONS.has(key))
      if (actions.length !== 1)
        throw new Error(`${id} step ${i + 1} has ${actions.length} actions: ${Object.keys(step)}`)
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}
