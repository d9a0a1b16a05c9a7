import type { ToolManifestSummary } from '@toolmark/core'
import { PAGE_DESCRIBE_TOOL, pageCallTool } from '@toolmark/core/protocol'
import { describe, expect, it } from 'vitest'
import { plan } from '../src/agent/providers/embedded/embedded.ts'
import type { AgentMessage, LlmTool } from '../src/agent/types.ts'
import { challengesTools, demoState, guidesToolmark, guidesTools, settingsTools } from './demo-tools.ts'
import type { FakeTool } from './helpers.ts'

type Outcome = { tool: string; input: unknown } | { text: string }

/** The page's manifest summary of `tools`, and the two LLM tools built from it. */
function exposure(tools: FakeTool[]): { manifest: ToolManifestSummary[]; llmTools: LlmTool[] } {
  const manifest: ToolManifestSummary[] = tools.map(({ name, llmName, title, description, hints, mode }) => ({
    name,
    llmName,
    ...(title === undefined ? {} : { title }),
    description,
    hints,
    ...(mode === undefined ? {} : { mode }),
  }))
  return { manifest, llmTools: [pageCallTool(manifest), PAGE_DESCRIBE_TOOL as LlmTool] }
}

/**
 * Runs the embedded agent on one message (after `history`, earlier turns) against a page's tools,
 * in memory: describes are answered; the first call is returned, or, with `result`, answered with
 * it and the agent's answer returned.
 */
function run(message: string, tools: FakeTool[], history: AgentMessage[] = [], result?: unknown): Outcome {
  const { manifest, llmTools } = exposure(tools)
  const messages: AgentMessage[] = [...history, { role: 'user', text: message }]
  for (let step = 0; step < 4; step++) {
    const event = plan({ system: '', messages, tools: llmTools, manifest })
    if (event.type === 'text') return { text: event.delta }
    const { call } = event
    const input = call.input as { tool: string; input?: unknown }
    if (call.name === 'page_call' && result === undefined) return { tool: input.tool, input: input.input }
    if (call.name === 'page_call') {
      messages.push({ role: 'assistant', text: '', toolCalls: [call] })
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: JSON.stringify(result) })
      continue
    }
    const { run: _run, summarize: _summarize, ...entry } = tools.find((t) => t.name === input.tool)!
    messages.push({ role: 'assistant', text: '', toolCalls: [call] })
    messages.push({
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      content: JSON.stringify({ status: 'ok', data: entry }),
    })
  }
  throw new Error('no answer')
}

const challenges = challengesTools(demoState())
const settings = settingsTools(demoState())
/** The demo's challenges page with its guides: the tour, the New challenge form and the wizard. */
const guided = [...challenges, ...guidesTools()]
const names = [...guided, ...settings].map((t) => t.name)

/** An earlier turn in which the agent called `tool` with `input` and the page answered ok. */
function earlier(said: string, tool: string, input: unknown): AgentMessage[] {
  const call = { id: 'earlier_1', name: 'page_call', input: { tool, input } }
  return [
    { role: 'user', text: said },
    { role: 'assistant', text: '', toolCalls: [call] },
    {
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      content: JSON.stringify({ status: 'ok', data: [] }),
    },
    { role: 'assistant', text: 'Done.', toolCalls: [] },
  ]
}

describe('embedded agent: phrasings → tool and input', () => {
  it.each<[string, FakeTool[], string, unknown]>([
    ['search', challenges, 'challenges.search', { query: '' }],
    ['Search for chess', challenges, 'challenges.search', { query: 'chess' }],
    ['serch for chess', challenges, 'challenges.search', { query: 'chess' }],
    ['find robotics', challenges, 'challenges.search', { query: 'robotics' }],
    ['create a challenge called Robotics', challenges, 'challenges.create', { name: 'Robotics' }],
    ['creat a challenge called Robotics', challenges, 'challenges.create', { name: 'Robotics' }],
    ['add a new challenge named "Chess club"', challenges, 'challenges.create', { name: 'Chess club' }],
    [
      'Delete the challenge Marathon Training',
      challenges,
      'challenges.delete',
      { name: 'Marathon Training' },
    ],
    ['delte the challenge Marathon Training', challenges, 'challenges.delete', { name: 'Marathon Training' }],
    ['remove the chalenge Marathon Training', challenges, 'challenges.delete', { name: 'Marathon Training' }],
    ['What do the notes of Chess Openings say?', challenges, 'challenges.notes', { name: 'Chess Openings' }],
    ['go to settings', challenges, 'app.navigate', { page: 'settings' }],
    ['open the setings page', challenges, 'app.navigate', { page: 'settings' }],
    ['navigate to challenges', settings, 'app.navigate', { page: 'challenges' }],
    [
      'update my card to 4242 4242 4242 4242 cvc 123 expiry 12/30',
      settings,
      'settings.updateCard',
      { card: { number: '4242 4242 4242 4242', cvc: '123', expiry: '12/30' } },
    ],
  ])('"%s" → %s', (message, tools, tool, input) => {
    expect(run(message, tools)).toEqual({ tool: tool, input })
  })
})

describe('embedded agent: guides (a tour, a form, a stepwise wizard)', () => {
  const filled = earlier('fill the new challenge form with name Robotics', 'challengeForm.fill', {
    name: 'Robotics',
  })
  const planned = earlier('next', 'plan.next', {})
  it.each<[string, string, unknown, AgentMessage[]]>([
    ['show me how to create a challenge', 'tour.start', { tour: 'create-challenge' }, []],
    ['how do I create a challenge?', 'tour.start', { tour: 'create-challenge' }, []],
    ['walk me through creating a new challenge', 'tour.start', { tour: 'create-challenge' }, []],
    ['fill the new challenge form with name Robotics', 'challengeForm.fill', { name: 'Robotics' }, []],
    [
      'fill in the challenge form: name "Chess club", description Learn openings',
      'challengeForm.fill',
      { name: 'Chess club', description: 'Learn openings' },
      [],
    ],
    ['submit it', 'challengeForm.submit', {}, filled],
    ['submit it', 'plan.submit', {}, planned],
    [
      'plan a challenge called Robotics in learning',
      'plan.fill',
      { values: { name: 'Robotics', category: 'learning' } },
      [],
    ],
    ['next step', 'plan.next', {}, []],
    // Still the tools they were before the guides came: creating is not showing how.
    ['create a challenge called Robotics', 'challenges.create', { name: 'Robotics' }, []],
    ['search for chess', 'challenges.search', { query: 'chess' }, []],
    ['can you show me how to create a challenge?', 'tour.start', { tour: 'create-challenge' }, []],
    ['search for how to play chess', 'challenges.search', { query: 'how to play chess' }, []],
  ])('"%s" → %s %j', (message, tool, input, history) => {
    expect(run(message, guided, history)).toEqual({ tool, input })
  })

  it("asks for the first step's fields, with their choices, when a plan names none", () => {
    expect(run('plan a challenge', guided)).toEqual({
      text: "Let's plan a challenge, step by step. The first step is basics: what name and category (fitness, learning or creative) should I fill in?",
    })
  })

  it('"submit it" after a fill leaves the approval to the user in the page', () => {
    const waiting = {
      status: 'needs_confirmation',
      confirmId: 'c1',
      summary: 'Create challenge "Robotics"',
      expiresAt: 0,
    }
    expect(run('submit it', guided, filled, waiting)).toEqual({
      text: 'A confirmation is waiting in the page: Create challenge "Robotics". Approve or reject it there.',
    })
  })

  it('a started tour is answered in plain words', () => {
    const started = { status: 'ok', data: { started: 'create-challenge', steps: 3 } }
    expect(run('show me how to create a challenge', guided, [], started)).toEqual({
      text: 'I started the guided tour in the page: follow its steps there.',
    })
  })

  it.each<[string, unknown, string]>([
    [
      'fill the new challenge form with name Robotics',
      [{ path: 'name', after: 'Robotics' }],
      'I filled in name: "Robotics". Nothing is saved until the form is submitted.',
    ],
    [
      'plan a challenge called Robotics in learning',
      [
        { path: 'name', after: 'Robotics' },
        { path: 'category', after: 'learning' },
      ],
      'I filled in name: "Robotics"; category: "learning". Nothing is saved until the form is submitted. Tell me the rest, or say "next" for the next step.',
    ],
    [
      'next step',
      { step: 'schedule', fields: ['starts'] },
      'Now on the schedule step: what starts should I fill in?',
    ],
  ])('"%s" is answered with what the form now holds', (message, data, answer) => {
    expect(run(message, guided, [], { status: 'ok', data })).toEqual({ text: answer })
  })

  it('a how-to with no tour for it is answered with the tours there are, and changes nothing', () => {
    expect(run('show me how to delete the challenge Marathon Training', guided)).toEqual({
      text: 'I have no guided tour for that. I can show you how to create challenge.',
    })
  })
})

describe('embedded agent: answers in plain words, never raw tool names', () => {
  const offer = [
    '- Open page: Open (go to, navigate to) another page of the app: "challenges" (the challenges list) or "settings" (account settings and payment card).',
    '- Create challenge: Create a new challenge with a name and an optional description.',
    '- Delete challenge: Delete (remove) one challenge by its exact name.',
    '- Read challenge notes: Read the notes the user wrote on one challenge (free text typed by the user).',
    '- Search challenges: Search the challenges list by keyword and return the matching challenges (id, name, description).',
  ].join('\n')
  it.each<[string, FakeTool[], string]>([
    ['help', challenges, `Here is what I can do on this page:\n${offer}`],
    ['What can you do?', challenges, `Here is what I can do on this page:\n${offer}`],
    ['sing me a song', challenges, `I cannot do that on this page. Here is what I can do:\n${offer}`],
    ['go to the admin page', challenges, 'There is no admin page. You can choose challenges or settings.'],
    ['go to a page', challenges, 'Which page? You can choose challenges or settings.'],
    [
      'delete all challenges',
      challenges,
      'I can only delete one challenge at a time, and each needs your approval, so I have not changed anything. Which challenge should I delete?',
    ],
    [
      'remove every challenge',
      challenges,
      'I can only remove one challenge at a time, and each needs your approval, so I have not changed anything. Which challenge should I remove?',
    ],
    ['create a challenge', challenges, 'To create challenge I need: name. Please tell me.'],
  ])('"%s"', (message, tools, answer) => {
    const outcome = run(message, tools)
    expect(outcome).toEqual({ text: answer })
    for (const name of names) expect((outcome as { text: string }).text).not.toContain(name)
  })

  it('knows no tool names in its code', async () => {
    const { readFile } = await import('node:fs/promises')
    const sources = await Promise.all(
      ['embedded.ts', 'words.ts', 'extract.ts'].map((f) =>
        readFile(new URL(`../src/agent/providers/embedded/${f}`, import.meta.url), 'utf8'),
      ),
    )
    for (const name of names) for (const source of sources) expect(source).not.toContain(name)
  })
})

/**
 * A whole conversation in memory: each user message runs a turn to its end (describes answered
 * with the tool's entry, calls by the tool itself); returns the agent's last text of each turn and
 * the calls it made.
 */
async function converse(
  said: string[],
  tools: FakeTool[],
): Promise<{ answers: string[]; calls: { tool: string; input: unknown }[] }> {
  const guides = guidesToolmark()
  const { manifest, llmTools } = exposure(tools)
  const messages: AgentMessage[] = []
  const answers: string[] = []
  const calls: { tool: string; input: unknown }[] = []
  for (const text of said) {
    messages.push({ role: 'user', text })
    for (let step = 0; ; step++) {
      if (step > 4) throw new Error(`no answer to ${text}`)
      const event = plan({ system: '', messages, tools: llmTools, manifest })
      if (event.type === 'text') {
        messages.push({ role: 'assistant', text: event.delta, toolCalls: [] })
        answers.push(event.delta)
        break
      }
      const { call } = event
      const input = call.input as { tool: string; input?: Record<string, unknown> }
      const tool = tools.find((t) => t.name === input.tool)!
      messages.push({ role: 'assistant', text: '', toolCalls: [call] })
      let result: unknown
      if (call.name === 'page_call') {
        calls.push({ tool: input.tool, input: input.input })
        // The guides run for real (the wizard keeps its step); the other tools are the fakes.
        result = tool.name.startsWith('plan.')
          ? await guides.call(tool.name, input.input ?? {}, { caller: 'inapp' })
          : tool.run(input.input ?? {})
      } else {
        const { run: _run, summarize: _summarize, ...entry } = tool
        result = { status: 'ok', data: entry }
      }
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: JSON.stringify(result) })
    }
  }
  return { answers, calls }
}

describe('embedded agent: a reply to its own question', () => {
  it('fills the stepwise form from the answers, step after step', async () => {
    const { answers, calls } = await converse(
      ['plan a challenge', 'Robotics, learning', 'next', '2027-01-10', 'next', '"build a line follower"'],
      [...challenges, ...guidesTools()],
    )
    expect(calls).toEqual([
      { tool: 'plan.fill', input: { values: { name: 'Robotics', category: 'learning' } } },
      { tool: 'plan.next', input: {} },
      { tool: 'plan.fill', input: { values: { starts: '2027-01-10' } } },
      { tool: 'plan.next', input: {} },
      { tool: 'plan.fill', input: { values: { goal: 'build a line follower' } } },
    ])
    expect(answers[1]).toBe(
      'I filled in name: "Robotics"; category: "learning". Nothing is saved until the form is submitted. Tell me the rest, or say "next" for the next step.',
    )
  })

  it.each<[string, unknown]>([
    ['Robotics in learning', { name: 'Robotics', category: 'learning' }],
    ['call it Robotics, in learning', { name: 'Robotics', category: 'learning' }],
    ['name Robotics, category creative', { name: 'Robotics', category: 'creative' }],
    ['"Chess, and more" and fitness', { name: 'Chess, and more', category: 'fitness' }],
    ['learning', { category: 'learning' }],
  ])('"%s" answers the first step', async (reply, values) => {
    const { calls } = await converse(['plan a challenge', reply], [...challenges, ...guidesTools()])
    expect(calls).toEqual([{ tool: 'plan.fill', input: { values } }])
  })

  it('a missing required value asked for is taken from the reply, with what the first message gave', async () => {
    const { answers, calls } = await converse(['create a challenge', 'Robotics'], challenges)
    expect(answers[0]).toMatch(/I need: name/)
    expect(calls).toEqual([{ tool: 'challenges.create', input: { name: 'Robotics' } }])
  })

  it('a reply that names another tool is that tool’s request, not an answer', async () => {
    const { calls } = await converse(
      ['plan a challenge', 'search for chess'],
      [...challenges, ...guidesTools()],
    )
    expect(calls).toEqual([{ tool: 'challenges.search', input: { query: 'chess' } }])
  })
})
