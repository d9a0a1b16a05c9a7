import { createToolmark, ok, type Toolmark } from '@toolmark/core'

/**
 * The real page's registry of the tests that run the core and the bridge against the server: a read-only
 * `challenges.search` and a consequential `challenges.create` (its name must be non-empty), over `names`, which
 * the create appends to.
 */
export function challengesRegistry(names: string[]): Toolmark {
  const tm = createToolmark()
  const challenges = tm.scope('challenges')
  challenges.register({
    name: 'search',
    description: 'Search the challenges list by keyword and return the matching challenges.',
    jsonSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    hints: { readOnly: true },
    run: (input) => {
      const query = String((input as { query: string }).query).toLowerCase()
      return ok({ results: names.filter((n) => n.toLowerCase().includes(query)).map((name) => ({ name })) })
    },
  })
  challenges.register({
    name: 'create',
    description: 'Create a new challenge with a name.',
    jsonSchema: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 } },
      required: ['name'],
      additionalProperties: false,
    },
    summary: (input) => `Create challenge "${(input as { name: string }).name}"`,
    hints: { consequential: true },
    run: (input) => {
      names.push((input as { name: string }).name)
      return ok({ name: (input as { name: string }).name })
    },
  })
  return tm
}
