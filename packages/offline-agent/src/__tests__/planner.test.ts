import { PAGE_DESCRIBE_TOOL, pageCallTool, renderManifest } from '@toolmark/protocol'
import { describe, expect, it } from 'vitest'
import { MAX_MANIFEST, MAX_TEXT } from '../bounds.ts'
import { plan, planWithin } from '../embedded.ts'
import { extractInput, primaryText } from '../extract.ts'
import { clauses, echo } from '../intent.ts'
import { pastTense } from '../reply.ts'
import type { LlmTool, ProviderRequest } from '../types.ts'
import { chooseTool, parseManifest, stem, words } from '../words.ts'
import { challengesTools, demoState, settingsTools } from './demo-tools.ts'

const summaries = [...challengesTools(demoState()), ...settingsTools(demoState()).slice(1)].map(
  ({ name, llmName, description, hints }) => ({ name, llmName, description, hints }),
)
const manifest = parseManifest(renderManifest(summaries))
const pick = (message: string) => chooseTool(message, manifest)?.tool.name

describe('embedded planner: reading the manifest', () => {
  it("reads back core's rendered manifest: names, descriptions and hints", () => {
    expect(manifest.map((t) => t.name)).toEqual([
      'app.navigate',
      'challenges.create',
      'challenges.delete',
      'challenges.notes',
      'challenges.search',
      'settings.updateCard',
    ])
    expect(manifest.find((t) => t.name === 'challenges.notes')!.hints).toEqual([
      'readOnly',
      'untrustedContent',
    ])
    expect(manifest.find((t) => t.name === 'challenges.create')!.description).toMatch(
      /^Create a new challenge/,
    )
  })

  it('splits names into stemmed words', () => {
    expect(words('settings.updateCard')).toEqual(['setting', 'update', 'card'])
    expect(stem('address')).toBe('address')
  })

  it.each([
    ['search', 'challenges.search'],
    ['find robotics', 'challenges.search'],
    ['list all challenges', 'challenges.search'],
    ['create a challenge called Robotics', 'challenges.create'],
    ['add a new challenge named "Chess club"', 'challenges.create'],
    ['remove the challenge Robotics', 'challenges.delete'],
    ['What do the notes of Chess Openings say?', 'challenges.notes'],
    ['go to settings', 'app.navigate'],
    ['change my payment card', 'settings.updateCard'],
  ])('"%s" → %s', (message, tool) => {
    expect(pick(message)).toBe(tool)
  })

  it('picks nothing for unrelated messages', () => {
    expect(pick('sing me a song')).toBeUndefined()
    expect(pick('')).toBeUndefined()
  })
})

describe('embedded planner: filling inputs', () => {
  const tool = new Set(['challenge', 'create', 'delete', 'search', 'note'])
  it.each([
    ['create "Chess club" now', 'Chess club'],
    ['create a challenge called Robotics', 'Robotics'],
    ['create a challenge named Sea Kayaking and more', 'Sea Kayaking'],
    ['read the notes of the challenge Marathon Training', 'Marathon Training'],
    ['What do the notes of Chess Openings say?', 'Chess Openings'],
    ['Search for chess', 'chess'],
    ['delete the challenge Robotics', 'Robotics'],
    ['delete Robotics challenge', 'Robotics'],
    ['search', undefined],
  ])('free text of "%s" is %s', (message, expected) => {
    expect(primaryText(message, tool)).toBe(expected)
  })

  it('fills enums, labelled secondary fields, numbers, and reports missing required fields', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        description: { type: 'string' },
        level: { type: 'string', enum: ['easy', 'hard'] },
        weeks: { type: 'integer' },
        email: { type: 'string' },
      },
      required: ['name', 'level'],
    }
    expect(
      extractInput('create a hard challenge called Robotics, description "Build a robot", weeks 6', schema, {
        toolWords: tool,
        readOnly: false,
      }),
    ).toEqual({
      input: { name: 'Robotics', description: 'Build a robot', level: 'hard', weeks: 6 },
      missing: [],
      choices: {},
      unknown: {},
    })
    expect(extractInput('create', schema, { toolWords: tool, readOnly: false })).toEqual({
      input: {},
      missing: ['name', 'level'],
      choices: { level: ['easy', 'hard'] },
      unknown: {},
    })
    expect(
      extractInput(
        'mail me at a.b@example.org',
        { properties: { email: { type: 'string' } } },
        { toolWords: tool, readOnly: true },
      ),
    ).toEqual({ input: { email: 'a.b@example.org' }, missing: [], choices: {}, unknown: {} })
  })

  it('gives read-only tools an empty string for a required free-text field without minLength', () => {
    const schema = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }
    expect(extractInput('search', schema, { toolWords: tool, readOnly: true })).toEqual({
      input: { query: '' },
      missing: [],
      choices: {},
      unknown: {},
    })
    expect(extractInput('search', schema, { toolWords: tool, readOnly: false }).missing).toEqual(['query'])
  })

  it('tolerates schemas that are not objects', () => {
    expect(extractInput('anything', undefined, { toolWords: tool, readOnly: false })).toEqual({
      input: {},
      missing: [],
      choices: {},
      unknown: {},
    })
    expect(extractInput('anything', { properties: [] }, { toolWords: tool, readOnly: false })).toEqual({
      input: {},
      missing: [],
      choices: {},
      unknown: {},
    })
  })
})

describe('embedded planner: the requests in a message', () => {
  it.each<[string, string[]]>([
    ['open the settings page and turn on dark mode', ['open the settings page', 'turn on dark mode']],
    ['go to settings, then update my card', ['go to settings', 'update my card']],
    ['search for chess; delete Marathon Training', ['search for chess', 'delete Marathon Training']],
    ['plan a challenge called Robotics in learning', ['plan a challenge called Robotics in learning']],
    ['create a challenge named "Chess and search"', ['create a challenge named "Chess and search"']],
    [
      'fill in the form: name "Chess club", description Learn openings',
      ['fill in the form: name "Chess club", description Learn openings'],
    ],
    [
      'Update my payment card to 4242 4242 4242 4242, CVC 123, expiry 12/29',
      ['Update my payment card to 4242 4242 4242 4242, CVC 123, expiry 12/29'],
    ],
    ['search for rock and roll', ['search for rock and roll']],
  ])('"%s"', (message, parts) => {
    expect(clauses(message)).toEqual(parts)
  })

  it.each([
    ['Search for chess', 'search for chess'],
    ['please update my card to 4242 4242 4242 4242', 'update your card'],
    ['Edit the challenge Chess Openings: change its name', 'edit the challenge Chess Openings'],
    ['set my password hunter2', 'set your password'],
    ['change my email to a@example.org', 'change your email'],
    ['tell me a joke', 'tell you a joke'],
    ['', 'do that'],
    ['I want to change my card', 'change your card'],
    ["what's on the settings page?", 'answer that'],
    [`sing ${'la '.repeat(40)}`, 'do that'],
  ])('repeats "%s" back as "%s", never a value that may be secret', (part, said) => {
    expect(echo(part)).toBe(said)
  })
})

describe('the past tense of a confirmation summary', () => {
  it.each([
    ['Create challenge "X"', 'Created "X"'],
    ['Delete challenge "Marathon Training"', 'Deleted "Marathon Training"'],
    ['Rename this challenge to "Chess Masters"', 'Renamed this challenge to "Chess Masters"'],
    ['Submit "challenge"', 'Submitted "challenge"'],
    ['Delete challenge 3', 'Deleted challenge 3'],
    ['Copy the card', 'Copied the card'],
    ['Send the invoice', 'Sent the invoice'],
    ['Stop the timer', 'Stopped the timer'],
    ['Open the door', 'Opened the door'],
    ['(no verb)', '“(no verb)” went through'],
  ])('%s → %s', (summary, past) => {
    expect(pastTense(summary)).toBe(past)
  })
})

describe('embedded planner: bounded work', () => {
  const tools = [...challengesTools(demoState())]
  const entries = tools.map(({ name, llmName, title, description, hints }) => ({
    name,
    llmName,
    ...(title === undefined ? {} : { title }),
    description,
    hints,
  }))
  const request = (text: string, manifest = entries): ProviderRequest => ({
    system: '',
    messages: [{ role: 'user', text }],
    tools: [pageCallTool(manifest), PAGE_DESCRIBE_TOOL as LlmTool],
    manifest,
  })
  // Filler up to the cut, then a request the planner would act on if it read that far.
  const filler = 'la '.repeat(Math.ceil(MAX_TEXT / 3)).slice(0, MAX_TEXT)
  const beyond = `${filler} search for chess ${'and more '.repeat(150_000)}`

  it('reads at most MAX_TEXT characters of a message: what follows changes nothing', () => {
    expect(beyond.length).toBeGreaterThan(1_000_000)
    const event = plan(request(beyond))
    expect(event).toEqual(plan(request(filler)))
    expect(event.type).toBe('text')
    // With the cut lifted the same message finds the search: the cut is what bounds the work.
    expect(planWithin(request(`${filler} search for chess`), Number.POSITIVE_INFINITY)).toEqual({
      type: 'tool_call',
      call: { id: 'embedded_1', name: 'page_describe', input: { tool: 'challenges.search' } },
    })
  })

  it('reads at most MAX_MANIFEST characters of the rendered manifest and MAX_TEXT of one description', () => {
    const padding = entries.map((e) => ({ ...e, description: `${e.description} ${'x'.repeat(MAX_TEXT)}` }))
    const late = [
      ...Array.from({ length: Math.ceil(MAX_MANIFEST / MAX_TEXT) + 1 }, (_, i) => ({
        ...padding[0]!,
        name: `filler${String.fromCharCode(97 + (i % 26))}${i}.noop`,
        llmName: `f${i}`,
        description: `Nothing ${'x'.repeat(MAX_TEXT)}`,
        hints: {},
      })),
      { ...entries.find((e) => e.name === 'challenges.search')!, name: 'zzz.search' },
    ]
    const rendered = pageCallTool(late).description
    expect(rendered.length).toBeGreaterThan(MAX_MANIFEST)
    // The search sorts last in the rendered manifest, past the cut: it is never seen.
    expect(plan(request('search for chess', late)).type).toBe('text')
  })

  it('splits a long message into its requests, commas inside quotes kept', () => {
    const many = 'search for "a, b" and delete x, '.repeat(2000)
    expect(clauses(many)).toHaveLength(4000)
  })
})
