import type { ToolManifestSummary, ToolResult } from '@toolmark/core'
import { PAGE_DESCRIBE_TOOL, pageCallTool } from '@toolmark/protocol'
import { CONTEXT_NOTE } from '@toolmark/protocol/extensions'
import { describe, expect, it } from 'vitest'
import { plan } from '../embedded.ts'
import type { AgentMessage, LlmTool } from '../types.ts'
import {
  challengesTools,
  demoState,
  guidesToolmark,
  guidesTools,
  inertiaCreateTools,
  inertiaIndexTools,
  inertiaSettingsTools,
  nextChallengesTools,
  nextChallengeTools,
  nextGuideHomeTools,
  nextGuideSettingsTools,
  nextSettingsTools,
  settingsTools,
  withDemoNavigation,
} from './demo-tools.ts'
import type { FakeTool } from './fake-tool.ts'

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
    '- Open page: Open (go to, navigate to) another page of the app: "challenges" (the challenges list: search, create and delete challenges, read their notes) or "settings" (account settings: update the payment card).',
    '- Create challenge: Create a new challenge with a name and an optional description.',
    '- Delete challenge: Delete (remove) one challenge by its exact name.',
    '- Read challenge notes: Read the notes the user wrote on one challenge (free text typed by the user).',
    '- Search challenges: Search the challenges list by keyword and return the matching challenges (id, name, description).',
  ].join('\n')
  it.each<[string, FakeTool[], string]>([
    ['help', challenges, `Here is what I can do on this page:\n${offer}`],
    ['What can you do?', challenges, `Here is what I can do on this page:\n${offer}`],
    ['sing me a song', challenges, `I cannot sing you a song on this page. Here is what I can do:\n${offer}`],
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
    const { readdir, readFile } = await import('node:fs/promises')
    const dir = new URL('../', import.meta.url)
    const files = (await readdir(dir)).filter((f) => f.endsWith('.ts'))
    expect(files).toContain('embedded.ts')
    const sources = await Promise.all(files.map((f) => readFile(new URL(f, dir), 'utf8')))
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
  pageContext?: string,
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
      // With `pageContext`, each request has the page's context right before the latest user message, as the
      // server puts it there (never in the stored history).
      const last = messages.findLastIndex((m) => m.role === 'user')
      const request = pageContext
        ? [
            ...messages.slice(0, last),
            { role: 'user' as const, text: pageContext, pageData: true as const },
            ...messages.slice(last),
          ]
        : messages
      const event = plan({ system: '', messages: request, tools: llmTools, manifest })
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

  it("answers its question the same when each request carries the page's context", async () => {
    const context = `${CONTEXT_NOTE}\n${JSON.stringify([{ name: 'list.search', description: 'The search', value: 'plan a challenge' }])}`
    const { answers, calls } = await converse(
      ['plan a challenge', 'Robotics, learning'],
      [...challenges, ...guidesTools()],
      context,
    )
    expect(calls).toEqual([
      { tool: 'plan.fill', input: { values: { name: 'Robotics', category: 'learning' } } },
    ])
    expect(answers[1]).toMatch(/^I filled in name: "Robotics"; category: "learning"\./)
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

/** Runs one user message to the end of its turn (each call answered by the tool itself). */
async function turn(
  message: string,
  tools: FakeTool[],
): Promise<{ answer: string; calls: { tool: string; input: unknown }[] }> {
  const { answers, calls } = await converse([message], tools)
  return { answer: answers.at(-1) ?? '', calls }
}

/** The binding's default navigation tool (a path input) with a description that lists paths and what they offer. */
function withPages(tools: FakeTool[]): FakeTool[] {
  return tools.map((t) =>
    t.name === 'navigate'
      ? {
          ...t,
          description:
            'Open another page of this site: /challenges (the challenges list: list, create and delete challenges), /challenges/new (the New challenge form: create a challenge), /settings (the color theme: set light or dark). Pass the path.',
        }
      : t,
  )
}

describe('embedded agent: navigation words open pages, never create', () => {
  const nextList = nextChallengesTools(demoState())
  const inertiaIndex = inertiaIndexTools()
  const inertiaCreate = inertiaCreateTools()
  const inertiaSettings = inertiaSettingsTools()
  it.each<[string, FakeTool[], string, unknown]>([
    ['go to the new challenge page', challenges, 'app.navigate', { page: 'challenges' }],
    ['open the new challenge form', guided, 'app.navigate', { page: 'challenges' }],
    ['take me to the settings page', challenges, 'app.navigate', { page: 'settings' }],
    ['show me the settings page', guided, 'app.navigate', { page: 'settings' }],
    ['go back to the challenges page', settings, 'app.navigate', { page: 'challenges' }],
    ['open the payment card page', challenges, 'app.navigate', { page: 'settings' }],
    ['bring me to my account settings', challenges, 'app.navigate', { page: 'settings' }],
    ['go to the new challenge page', nextList, 'app.navigate', { page: 'challenges' }],
    ['open the settings', nextList, 'app.navigate', { page: 'settings' }],
    ['go to the new challenge page', withPages(inertiaIndex), 'navigate', { url: '/challenges/new' }],
    ['open the new challenge form', withPages(inertiaIndex), 'navigate', { url: '/challenges/new' }],
    ['take me to the challenges list', withPages(inertiaCreate), 'navigate', { url: '/challenges' }],
    // A lookup this page cannot serve opens the page it names.
    ['list the challenges', withPages(inertiaCreate), 'navigate', { url: '/challenges' }],
    ['open /settings', inertiaIndex, 'navigate', { url: '/settings' }],
    ['go to /challenges/2', inertiaCreate, 'navigate', { url: '/challenges/2' }],
    // The Inertia demo's own navigation tool: `pages` as an enum, what each offers in its description.
    ['go to the new challenge page', withDemoNavigation(inertiaIndex), 'navigate', { page: 'new-challenge' }],
    ['open the new challenge form', withDemoNavigation(inertiaIndex), 'navigate', { page: 'new-challenge' }],
    ['open the settings page', withDemoNavigation(inertiaIndex), 'navigate', { page: 'settings' }],
    ['take me to the challenges list', withDemoNavigation(inertiaCreate), 'navigate', { page: 'challenges' }],
    [
      'go back to the challenges page',
      withDemoNavigation(inertiaSettings),
      'navigate',
      { page: 'challenges' },
    ],
    ['open /challenges/2', withDemoNavigation(inertiaIndex), 'navigate', { url: '/challenges/2' }],
  ])('"%s" (case %#)', (message, tools, tool, input) => {
    expect(run(message, tools)).toEqual({ tool, input })
  })

  it('a tool that takes "page or url" gets the page, whichever input its schema lists first', () => {
    const urlFirst = withDemoNavigation(inertiaIndexTools()).map((t) => {
      if (t.name !== 'navigate') return t
      const { page, ...rest } = (t.inputSchema as { properties: Record<string, unknown> }).properties
      return { ...t, inputSchema: { ...t.inputSchema, properties: { ...rest, page } } }
    })
    expect(run('open the settings page', urlFirst)).toEqual({ tool: 'navigate', input: { page: 'settings' } })
    expect(run('go to the new challenge page', urlFirst)).toEqual({
      tool: 'navigate',
      input: { page: 'new-challenge' },
    })
  })

  it('a page it cannot place is asked for, never created', () => {
    expect(run('go to the new challenge page', inertiaIndexTools())).toEqual({
      text: 'I do not know the path of the new challenge page. Tell me the path to open, e.g. /challenges/3.',
    })
    expect(run('open the new challenge form', inertiaIndexTools())).toEqual({
      text: 'I do not know the path of the new challenge form. Tell me the path to open, e.g. /challenges/3.',
    })
  })
})

describe('embedded agent: edit and rename go to the tool that edits', () => {
  const nextOne = nextChallengeTools(demoState(), 'c-chess')
  it.each<[string, FakeTool[], string, unknown]>([
    [
      'Edit the challenge Chess Openings: change its name to Chess Masters',
      nextOne,
      'challenge.rename',
      { name: 'Chess Masters' },
    ],
    ['rename it to Chess Masters', nextOne, 'challenge.rename', { name: 'Chess Masters' }],
    ['change the name to "Chess Club"', nextOne, 'challenge.rename', { name: 'Chess Club' }],
    ['update the name to Chess Masters', nextOne, 'challenge.rename', { name: 'Chess Masters' }],
    ['show the challenge details', nextOne, 'challenge.details', {}],
    ['set the theme to dark', inertiaSettingsTools(), 'settings.theme', { theme: 'dark' }],
    ['turn on dark mode', inertiaSettingsTools(), 'settings.theme', { theme: 'dark' }],
    ['change the theme to light', inertiaSettingsTools(), 'settings.theme', { theme: 'light' }],
  ])('"%s" (case %#)', (message, tools, tool, input) => {
    expect(run(message, tools)).toEqual({ tool, input })
  })

  it('an edit on a page that only opens the challenge opens it, and says the rename is still to do', async () => {
    expect(await turn('rename Chess Openings to Chess Masters', nextChallengesTools(demoState()))).toEqual({
      calls: [{ tool: 'challenges.open', input: { name: 'Chess Openings' } }],
      answer:
        'Opened Chess Openings. I did not rename Chess Openings yet: ask me again now that the page is open.',
    })
  })

  it('an edit with no tool that edits is answered, not sent to a form or a create', async () => {
    const { answer, calls } = await turn(
      'Edit the challenge Chess Openings: change its name to Chess Masters',
      guided,
    )
    expect(calls).toEqual([])
    expect(answer).toMatch(/^I cannot edit the challenge Chess Openings on this page\./)
  })
})

describe('embedded agent: lists, partial requests and tools of other pages', () => {
  it.each<[string, FakeTool[], string, unknown]>([
    ['list the challenges', inertiaIndexTools(), 'challenges.list', {}],
    ['show me the challenges', inertiaIndexTools(), 'challenges.list', {}],
    ['list the challenges', challenges, 'challenges.search', { query: '' }],
    ['what challenges are there?', inertiaIndexTools(), 'challenges.list', {}],
    ['create a challenge titled Robotics', inertiaIndexTools(), 'challenges.create', { title: 'Robotics' }],
    [
      'fill the new challenge form with title "Kite building"',
      inertiaCreateTools(),
      'challenge.fill',
      { title: 'Kite building' },
    ],
  ])('"%s" (case %#)', (message, tools, tool, input) => {
    expect(run(message, tools)).toEqual({ tool, input })
  })

  it.each<[string, FakeTool[], string]>([
    [
      'list the challenges',
      inertiaCreateTools(),
      'I cannot list the challenges on this page. Here is what I can do:',
    ],
    [
      'Search for chess',
      settings,
      'I cannot search for chess on this page; the challenges page can. Say "go to challenges", then ask me again.',
    ],
    [
      'delete the challenge Marathon Training',
      settings,
      'I cannot delete the challenge Marathon Training on this page; the challenges page can. Say "go to challenges", then ask me again.',
    ],
    [
      'create a challenge called Kites',
      settings,
      'I cannot create a challenge called Kites on this page; the challenges page can. Say "go to challenges", then ask me again.',
    ],
    [
      'read the notes of Chess Openings',
      settings,
      'I cannot read the notes of Chess Openings on this page; the challenges page can. Say "go to challenges", then ask me again.',
    ],
    [
      'update my card to 4242 4242 4242 4242 cvc 123 expiry 12/30',
      challenges,
      'I cannot update your card on this page; the settings page can. Say "go to settings", then ask me again.',
    ],
    [
      'change my payment card',
      guided,
      'I cannot change your payment card on this page; the settings page can. Say "go to settings", then ask me again.',
    ],
    [
      'turn on dark mode',
      withPages(inertiaIndexTools()),
      'I cannot turn on dark mode on this page; the /settings page can. Say "go to /settings", then ask me again.',
    ],
    ['turn on dark mode', challenges, 'I cannot turn on dark mode on this page. Here is what I can do:'],
  ])('"%s" is answered with where it can be done (case %#)', async (message, tools, answer) => {
    const outcome = await turn(message, tools)
    expect(outcome.calls).toEqual([])
    expect(outcome.answer.startsWith(answer)).toBe(true)
  })

  it.each<[string, FakeTool[], { tool: string; input: unknown }[], string]>([
    [
      'open the settings page and turn on dark mode',
      challenges,
      [{ tool: 'app.navigate', input: { page: 'settings' } }],
      'Opened the settings page. I did not turn on dark mode yet: ask me again now that the page is open.',
    ],
    [
      'go to settings, then update my card',
      challenges,
      [{ tool: 'app.navigate', input: { page: 'settings' } }],
      'Opened the settings page. I did not update your card yet: ask me again now that the page is open.',
    ],
    [
      'search for chess and delete Marathon Training',
      challenges,
      [
        { tool: 'challenges.search', input: { query: 'chess' } },
        { tool: 'challenges.delete', input: { name: 'Marathon Training' } },
      ],
      'I found 1 challenge: Chess Openings. Deleted "Marathon Training".',
    ],
    [
      'search for chess and tell me a joke',
      challenges,
      [{ tool: 'challenges.search', input: { query: 'chess' } }],
      'I found 1 challenge: Chess Openings. I could not tell you a joke on this page.',
    ],
    [
      'create a challenge called Kites and turn on dark mode',
      challenges,
      [{ tool: 'challenges.create', input: { name: 'Kites' } }],
      'Created "Kites". I could not turn on dark mode on this page.',
    ],
  ])('"%s" says which part it could not do', async (message, tools, calls, answer) => {
    expect(await turn(message, tools)).toEqual({ calls, answer })
  })
})

/**
 * The follow-up turn after the user answered a confirmation: `said` was described and called
 * (`tool` with `input`), the page asked to confirm `summary`, and `outcome` came back.
 */
function confirmedAnswer(
  tools: FakeTool[],
  said: string,
  tool: string,
  input: unknown,
  summary: string,
  outcome: unknown,
  before: AgentMessage[] = [],
): string {
  const { run: _run, summarize: _summarize, ...entry } = tools.find((t) => t.name === tool)!
  const messages: AgentMessage[] = [
    ...before,
    { role: 'user', text: said },
    { role: 'assistant', text: '', toolCalls: [{ id: 'd1', name: 'page_describe', input: { tool } }] },
    {
      role: 'tool',
      toolCallId: 'd1',
      name: 'page_describe',
      content: JSON.stringify({ status: 'ok', data: entry }),
    },
    { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'page_call', input: { tool, input } }] },
    {
      role: 'tool',
      toolCallId: 'c1',
      name: 'page_call',
      content: JSON.stringify({ status: 'needs_confirmation', confirmId: 'k1', summary, expiresAt: 0 }),
    },
    { role: 'assistant', text: 'A confirmation is waiting in the page.', toolCalls: [] },
    { role: 'tool', toolCallId: 'c1', name: 'page_call', content: JSON.stringify(outcome), confirmId: 'k1' },
  ]
  const event = plan({ system: '', messages, tools: [] })
  if (event.type !== 'text') throw new Error('expected text')
  return event.delta
}

it('a decision asked again on a new page load (its card has a new confirmId) is followed up with its summary', () => {
  const messages: AgentMessage[] = [
    { role: 'user', text: 'delete the note called "Kite building"' },
    {
      role: 'assistant',
      text: '',
      toolCalls: [
        { id: 'c1', name: 'page_call', input: { tool: 'notes.delete', input: { title: 'Kite building' } } },
      ],
    },
    {
      role: 'tool',
      toolCallId: 'c1',
      name: 'page_call',
      content: JSON.stringify({
        status: 'needs_confirmation',
        confirmId: 'k1',
        summary: 'Delete "Kite building"',
        expiresAt: 0,
      }),
    },
    { role: 'assistant', text: 'A confirmation is waiting in the page.', toolCalls: [] },
    // Approved on the reloaded page, whose card asked the same call again as k2.
    {
      role: 'tool',
      toolCallId: 'c1',
      name: 'page_call',
      content: JSON.stringify({ status: 'ok', data: { deleted: 'Kite building' } }),
      confirmId: 'k2',
    },
  ]
  const event = plan({ system: '', messages, tools: [] })
  expect(event).toEqual({ type: 'text', delta: 'Deleted "Kite building".' })
})

describe('embedded agent: replies read like a person, from titles, summaries and results', () => {
  const nextList = nextChallengesTools(demoState())
  const nextOne = nextChallengeTools(demoState(), 'c-chess')
  const ok = (data?: unknown) => (data === undefined ? { status: 'ok' } : { status: 'ok', data })
  it.each<[string, FakeTool[], unknown, string]>([
    ['go to settings', challenges, ok({ page: 'settings' }), 'Opened the settings page.'],
    [
      'go to the new challenge page',
      withDemoNavigation(inertiaIndexTools()),
      ok({ component: 'Challenges/Create', url: '/challenges/new' }),
      'Opened the new challenge page.',
    ],
    ['open Chess Openings', nextList, ok({ href: '/challenges/c-chess' }), 'Opened Chess Openings.'],
    [
      'go to /settings',
      inertiaIndexTools(),
      ok({ component: 'Settings', url: '/settings' }),
      'Opened /settings.',
    ],
    [
      'show the challenge details',
      nextOne,
      ok({ id: 'c-chess', name: 'Chess Openings', description: 'Learn one new opening a week.' }),
      'Chess Openings: Learn one new opening a week.',
    ],
    ['where am I?', nextOne, ok({ path: '/settings', params: {} }), 'Current page: path /settings.'],
    ['create a challenge called Kites', challenges, ok({ id: 'c-kites', name: 'Kites' }), 'Created "Kites".'],
    [
      'delete the challenge Marathon Training',
      challenges,
      ok({ deleted: 'Marathon Training' }),
      'Deleted "Marathon Training".',
    ],
    [
      'rename it to Chess Masters',
      nextOne,
      ok({ id: 'c-chess', name: 'Chess Masters' }),
      'Renamed it to "Chess Masters".',
    ],
    ['turn on dark mode', inertiaSettingsTools(), ok({ theme: 'dark' }), 'Done: the theme is now dark.'],
    ['search for kites', challenges, ok({ results: [] }), 'I found no challenges matching "kites".'],
    [
      'list the challenges',
      inertiaIndexTools(),
      ok([{ id: 1, title: 'Chess Openings', goal: 'Learn one new opening a week' }]),
      'I found 1 challenge: Chess Openings.',
    ],
    [
      'submit it',
      inertiaCreateTools(),
      { status: 'invalid', issues: [{ path: 'title', message: 'The title has already been taken.' }] },
      'Nothing was saved. The page did not accept the title: The title has already been taken.',
    ],
    [
      'submit it',
      inertiaCreateTools(),
      {
        status: 'invalid',
        issues: [
          { path: 'title', message: 'Required' },
          { path: 'goal', message: 'Too long' },
        ],
      },
      'Nothing was saved. The page did not accept the title: Required; the goal: Too long.',
    ],
    [
      'read the notes of Chess',
      challenges,
      { status: 'invalid', issues: [{ path: 'name', message: 'No challenge named "Chess"' }] },
      'The page did not accept the name: No challenge named "Chess".',
    ],
    [
      'submit it',
      inertiaCreateTools(),
      { status: 'needs_confirmation', confirmId: 'k', summary: 'Submit "New challenge"', expiresAt: 0 },
      'A confirmation is waiting in the page to create a challenge from the New challenge form. Approve or reject it there.',
    ],
  ])('"%s" (case %#)', (message, tools, result, answer) => {
    const outcome = run(message, tools, [], result)
    expect(outcome).toEqual({ text: answer })
    for (const name of tools.map((t) => t.name)) expect(answer).not.toContain(name)
  })

  const filled = earlier('fill the new challenge form with title "Kite building"', 'challenge.fill', {
    title: 'Kite building',
  })
  it.each<[string, FakeTool[], string, unknown, string, unknown, string, AgentMessage[]]>([
    [
      'create a challenge called Robotics',
      challenges,
      'challenges.create',
      { name: 'Robotics' },
      'Create challenge "Robotics"',
      { status: 'ok', data: { id: 'c-robotics', name: 'Robotics' } },
      'Created "Robotics".',
      [],
    ],
    [
      'delete the challenge Marathon Training',
      challenges,
      'challenges.delete',
      { name: 'Marathon Training' },
      'Delete challenge "Marathon Training"',
      { status: 'ok', data: { deleted: 'Marathon Training' } },
      'Deleted "Marathon Training".',
      [],
    ],
    [
      'rename it to Chess Masters',
      nextOne,
      'challenge.rename',
      { name: 'Chess Masters' },
      'Rename this challenge to "Chess Masters"',
      { status: 'ok', data: { id: 'c-chess', name: 'Chess Masters' } },
      'Renamed this challenge to "Chess Masters".',
      [],
    ],
    [
      'submit it',
      inertiaCreateTools(),
      'challenge.submit',
      {},
      'Submit "New challenge"',
      { status: 'ok' },
      'Created a challenge from the New challenge form (title "Kite building").',
      filled,
    ],
    [
      'submit it',
      inertiaCreateTools(),
      'challenge.submit',
      {},
      'Submit "New challenge"',
      { status: 'cancelled', by: 'operator' },
      'Understood: you rejected it, so nothing was changed.',
      filled,
    ],
    [
      'submit it',
      inertiaCreateTools(),
      'challenge.submit',
      {},
      'Submit "New challenge"',
      { status: 'invalid', issues: [{ path: 'title', message: 'The title has already been taken.' }] },
      'Nothing was saved. The page did not accept the title: The title has already been taken.',
      filled,
    ],
    [
      'create a challenge called Robotics',
      challenges,
      'challenges.create',
      { name: 'Robotics' },
      'Create challenge "Robotics"',
      { status: 'cancelled', by: 'operator' },
      'Understood: you rejected it (Create challenge "Robotics"), so nothing was changed.',
      [],
    ],
  ])(
    'the confirmed outcome of "%s" (case %#)',
    (said, tools, tool, input, summary, outcome, answer, before) => {
      expect(confirmedAnswer(tools, said, tool, input, summary, outcome, before)).toBe(answer)
    },
  )
})

describe('embedded agent: pages it does not know', () => {
  it('"go to the admin page" on a page with a tool that opens one challenge still names the pages there are', () => {
    expect(run('go to the admin page', nextChallengesTools(demoState()))).toEqual({
      text: 'There is no admin page. You can choose challenges or settings.',
    })
  })
})

/*
 * The page, not the phrasing: one table across the three demos and the Next guide's app, each page
 * with the tools it really has (demo-tools.ts, checked against the apps by demo-mirror.test.ts). A
 * row gives the tool and input of the first page call, or the start of the answer when nothing is
 * called. It holds every phrasing of the first-run report ("Switch to the dark theme" on the guide's
 * settings page, "Create a challenge called Pottery" on the Vite demo's settings page, the Inertia
 * demo's New challenge page...).
 */
const viteChallenges = [...challengesTools(demoState()), ...guidesTools()]
/** The Vite demo's settings page: the card, the navigation, and the tour runner (on every page). */
const viteSettings = [...settingsTools(demoState()), ...guidesTools().filter((t) => t.name === 'tour.start')]
const nextList = nextChallengesTools(demoState())
const nextOne = nextChallengeTools(demoState(), 'c-chess')
const nextSettings = nextSettingsTools(demoState())
const guideHome = nextGuideHomeTools()
const guideSettings = nextGuideSettingsTools()
const inertiaIndex = withDemoNavigation(inertiaIndexTools())
const inertiaNew = withDemoNavigation(inertiaCreateTools())
const inertiaSettings = withDemoNavigation(inertiaSettingsTools())
const dark = { theme: 'dark' }
const light = { theme: 'light' }
const say = (text: string) => ({ text })
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export const PAGE_TABLE: [string, FakeTool[], string, Outcome][] = [
  // The Next guide's app (docs/framework/next.md): settings page.
  ['guide /settings', guideSettings, 'Switch to the dark theme', { tool: 'settings.setTheme', input: dark }],
  [
    'guide /settings',
    guideSettings,
    'Switch the colour theme of the app to dark',
    { tool: 'settings.setTheme', input: dark },
  ],
  ['guide /settings', guideSettings, 'set theme dark', { tool: 'settings.setTheme', input: dark }],
  ['guide /settings', guideSettings, 'set the theme to light', { tool: 'settings.setTheme', input: light }],
  ['guide /settings', guideSettings, 'switch to light', { tool: 'settings.setTheme', input: light }],
  [
    'guide /settings',
    guideSettings,
    'change the colour theme to dark',
    { tool: 'settings.setTheme', input: dark },
  ],
  ['guide /settings', guideSettings, 'use the dark theme', { tool: 'settings.setTheme', input: dark }],
  ['guide /settings', guideSettings, 'dark theme please', { tool: 'settings.setTheme', input: dark }],
  ['guide /settings', guideSettings, 'enable dark mode', { tool: 'settings.setTheme', input: dark }],
  ['guide /settings', guideSettings, 'take me to the dark theme', { tool: 'settings.setTheme', input: dark }],
  ['guide /settings', guideSettings, 'go home', { tool: 'app.navigate', input: { page: 'home' } }],
  [
    'guide /settings',
    guideSettings,
    'go to the admin page',
    say('There is no admin page. You can choose home or settings.'),
  ],
  // The guide's home page: the navigation tool alone, which never opens a page made of the user's words.
  ['guide /', guideHome, 'open the settings page', { tool: 'app.navigate', input: { page: 'settings' } }],
  ['guide /', guideHome, 'go to settings', { tool: 'app.navigate', input: { page: 'settings' } }],
  ['guide /', guideHome, 'Switch to the dark theme', say('I cannot switch to the dark theme on this page.')],
  ['guide /', guideHome, 'set theme dark', say('I cannot set theme dark on this page.')],
  [
    'guide /',
    guideHome,
    'go to the dark theme',
    say('There is no dark theme page. You can choose home or settings.'),
  ],
  ['guide /', guideHome, 'open /settings', { tool: 'app.navigate', input: { url: '/settings' } }],
  // The Vite demo (apps/demo): the challenges page with its guides.
  [
    'vite challenges',
    viteChallenges,
    'Search for chess',
    { tool: 'challenges.search', input: { query: 'chess' } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'Create a challenge called Robotics',
    { tool: 'challenges.create', input: { name: 'Robotics' } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'Delete the challenge Marathon Training',
    { tool: 'challenges.delete', input: { name: 'Marathon Training' } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'Delete the challenge Juggling',
    { tool: 'challenges.delete', input: { name: 'Juggling' } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'What do the notes of Chess Openings say?',
    { tool: 'challenges.notes', input: { name: 'Chess Openings' } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'Go to settings',
    { tool: 'app.navigate', input: { page: 'settings' } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'show me how to create a challenge',
    { tool: 'tour.start', input: { tour: 'create-challenge' } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'fill the new challenge form with name Robotics',
    { tool: 'challengeForm.fill', input: { name: 'Robotics' } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'plan a challenge called Robotics in learning',
    { tool: 'plan.fill', input: { values: { name: 'Robotics', category: 'learning' } } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'list the challenges',
    { tool: 'challenges.search', input: { query: '' } },
  ],
  [
    'vite challenges',
    viteChallenges,
    'start a challenge called Pottery',
    { tool: 'challenges.create', input: { name: 'Pottery' } },
  ],
  // The Vite demo's settings page: the card, and a tour runner that is no place to create anything.
  [
    'vite settings',
    viteSettings,
    'Update my payment card to 4242 4242 4242 4242, CVC 123, expiry 12/29',
    {
      tool: 'settings.updateCard',
      input: { card: { number: '4242 4242 4242 4242', cvc: '123', expiry: '12/29' } },
    },
  ],
  [
    'vite settings',
    viteSettings,
    'Create a challenge called Pottery',
    say(
      'I cannot create a challenge called Pottery on this page; the challenges page can. Say "go to challenges", then ask me again.',
    ),
  ],
  [
    'vite settings',
    viteSettings,
    'start a challenge called Pottery',
    say('I cannot start a challenge called Pottery on this page; the challenges page can.'),
  ],
  [
    'vite settings',
    viteSettings,
    'Search for chess',
    say(
      'I cannot search for chess on this page; the challenges page can. Say "go to challenges", then ask me again.',
    ),
  ],
  [
    'vite settings',
    viteSettings,
    'list the challenges',
    { tool: 'app.navigate', input: { page: 'challenges' } },
  ],
  [
    'vite settings',
    viteSettings,
    'what challenges are there?',
    { tool: 'app.navigate', input: { page: 'challenges' } },
  ],
  [
    'vite settings',
    viteSettings,
    'show me how to create a challenge',
    { tool: 'tour.start', input: { tour: 'create-challenge' } },
  ],
  [
    'vite settings',
    viteSettings,
    'go back to the challenges page',
    { tool: 'app.navigate', input: { page: 'challenges' } },
  ],
  [
    'vite settings',
    viteSettings,
    'Switch to the dark theme',
    say('I cannot switch to the dark theme on this page.'),
  ],
  // The Next demo (apps/next-demo).
  [
    'next /challenges',
    nextList,
    'search for marathon',
    { tool: 'challenges.search', input: { query: 'marathon' } },
  ],
  [
    'next /challenges',
    nextList,
    'open Chess Openings',
    { tool: 'challenges.open', input: { name: 'Chess Openings' } },
  ],
  ['next /challenges', nextList, 'go to settings', { tool: 'app.navigate', input: { page: 'settings' } }],
  ['next /challenges', nextList, 'where am I?', { tool: 'app.whereAmI', input: {} }],
  [
    'next /challenges',
    nextList,
    'go to the admin page',
    say('There is no admin page. You can choose challenges or settings.'),
  ],
  [
    'next /challenges',
    nextList,
    'create a challenge called Kites',
    { tool: 'challenges.create', input: { name: 'Kites' } },
  ],
  [
    'next /challenges/[id]',
    nextOne,
    'rename it to Chess Masters',
    { tool: 'challenge.rename', input: { name: 'Chess Masters' } },
  ],
  ['next /challenges/[id]', nextOne, 'show the challenge details', { tool: 'challenge.details', input: {} }],
  [
    'next /challenges/[id]',
    nextOne,
    'go back to the challenges page',
    { tool: 'app.navigate', input: { page: 'challenges' } },
  ],
  [
    'next /settings',
    nextSettings,
    'update my card to 4242 4242 4242 4242 cvc 123 expiry 12/30',
    {
      tool: 'settings.updateCard',
      input: { card: { number: '4242 4242 4242 4242', cvc: '123', expiry: '12/30' } },
    },
  ],
  [
    'next /settings',
    nextSettings,
    'Search for chess',
    say(
      'I cannot search for chess on this page; the challenges page can. Say "go to challenges", then ask me again.',
    ),
  ],
  [
    'next /settings',
    nextSettings,
    'list the challenges',
    { tool: 'app.navigate', input: { page: 'challenges' } },
  ],
  ['next /settings', nextSettings, 'set theme dark', say('I cannot set theme dark on this page.')],
  // The Inertia demo (apps/inertia-demo), with its own navigation tool.
  ['inertia /challenges', inertiaIndex, 'list the challenges', { tool: 'challenges.list', input: {} }],
  [
    'inertia /challenges',
    inertiaIndex,
    'create a challenge titled Robotics',
    { tool: 'challenges.create', input: { title: 'Robotics' } },
  ],
  [
    'inertia /challenges',
    inertiaIndex,
    'create a challenge called Kites',
    { tool: 'challenges.create', input: { title: 'Kites' } },
  ],
  [
    'inertia /challenges',
    inertiaIndex,
    'delete the challenge with id 2',
    { tool: 'challenges.delete', input: { id: 2 } },
  ],
  [
    'inertia /challenges',
    inertiaIndex,
    'open the settings page',
    { tool: 'navigate', input: { page: 'settings' } },
  ],
  [
    'inertia /challenges',
    inertiaIndex,
    'go to the new challenge page',
    { tool: 'navigate', input: { page: 'new-challenge' } },
  ],
  [
    'inertia /challenges',
    inertiaIndex,
    'turn on dark mode',
    say(
      'I cannot turn on dark mode on this page; the settings page can. Say "go to settings", then ask me again.',
    ),
  ],
  // The New challenge page: a request naming a title fills the form before its submit.
  [
    'inertia /challenges/new',
    inertiaNew,
    'create a challenge called Kites',
    { tool: 'challenge.fill', input: { title: 'Kites' } },
  ],
  [
    'inertia /challenges/new',
    inertiaNew,
    'create a challenge called Pottery',
    { tool: 'challenge.fill', input: { title: 'Pottery' } },
  ],
  [
    'inertia /challenges/new',
    inertiaNew,
    'add a challenge named "Kite building"',
    { tool: 'challenge.fill', input: { title: 'Kite building' } },
  ],
  ['inertia /challenges/new', inertiaNew, 'create a new challenge', { tool: 'challenge.submit', input: {} }],
  ['inertia /challenges/new', inertiaNew, 'submit it', { tool: 'challenge.submit', input: {} }],
  [
    'inertia /challenges/new',
    inertiaNew,
    'fill the new challenge form with title Kites',
    { tool: 'challenge.fill', input: { title: 'Kites' } },
  ],
  [
    'inertia /challenges/new',
    inertiaNew,
    'list the challenges',
    { tool: 'navigate', input: { page: 'challenges' } },
  ],
  [
    'inertia /challenges/new',
    inertiaNew,
    'take me to the challenges list',
    { tool: 'navigate', input: { page: 'challenges' } },
  ],
  ['inertia /settings', inertiaSettings, 'set the theme to dark', { tool: 'settings.theme', input: dark }],
  ['inertia /settings', inertiaSettings, 'Switch to the dark theme', { tool: 'settings.theme', input: dark }],
  ['inertia /settings', inertiaSettings, 'set theme light', { tool: 'settings.theme', input: light }],
  [
    'inertia /settings',
    inertiaSettings,
    'list the challenges',
    { tool: 'navigate', input: { page: 'challenges' } },
  ],
  [
    'inertia /settings',
    inertiaSettings,
    'what challenges are there?',
    { tool: 'navigate', input: { page: 'challenges' } },
  ],
  [
    'inertia /settings',
    inertiaSettings,
    'create a challenge called Pottery',
    say('I cannot create a challenge called Pottery on this page; the challenges page can.'),
  ],
]

describe('embedded agent: the page decides (three demos and the Next guide)', () => {
  it('has at least 60 phrasings', () => {
    expect(PAGE_TABLE.length).toBeGreaterThanOrEqual(60)
  })

  it.each(PAGE_TABLE.map(([page, tools, message, expected]) => ({ page, tools, message, expected })))(
    '$page: "$message" (case $#)',
    ({ tools, message, expected }) => {
      const outcome = run(message, tools)
      if ('text' in expected)
        expect(outcome).toEqual({ text: expect.stringMatching(new RegExp(`^${literal(expected.text)}`)) })
      else expect(outcome).toEqual(expected)
    },
  )
})

/** `tools` as a page that asks to confirm what changes: consequential and destructive calls wait for a card. */
function confirming(tools: FakeTool[]): FakeTool[] {
  return tools.map((t) =>
    t.hints.consequential || t.hints.destructive
      ? {
          ...t,
          run: (input) => ({
            status: 'needs_confirmation',
            confirmId: 'k1',
            summary: t.summarize?.(input) ?? `Submit "${t.title ?? t.name}"`,
            changes: [],
          }),
        }
      : t,
  )
}

describe('embedded agent: whole turns of the first-run report', () => {
  it.each(['Kites', 'Pottery'])(
    'on the New challenge page, "create a challenge called %s" fills the title, then submits, and names it',
    async (title) => {
      expect(await turn(`create a challenge called ${title}`, confirming(inertiaNew))).toEqual({
        calls: [
          { tool: 'challenge.fill', input: { title } },
          { tool: 'challenge.submit', input: {} },
        ],
        answer: `A confirmation is waiting in the page to create a challenge from the New challenge form (title "${title}"). Approve or reject it there.`,
      })
    },
  )

  it('a submit the page accepts at once is answered with what was filled', async () => {
    expect(await turn('create a challenge called Kites', inertiaNew)).toEqual({
      calls: [
        { tool: 'challenge.fill', input: { title: 'Kites' } },
        { tool: 'challenge.submit', input: {} },
      ],
      answer: 'Created a challenge from the New challenge form (title "Kites").',
    })
  })

  it('a fill the page refuses is not submitted', async () => {
    const refusing = inertiaNew.map((t) =>
      t.name === 'challenge.fill'
        ? {
            ...t,
            run: (): ToolResult => ({ status: 'invalid', issues: [{ path: 'title', message: 'Too long' }] }),
          }
        : t,
    )
    expect(await turn('create a challenge called Kites', refusing)).toEqual({
      calls: [{ tool: 'challenge.fill', input: { title: 'Kites' } }],
      answer: 'The page did not accept the title: Too long.',
    })
  })

  it('"list the challenges" elsewhere goes there', async () => {
    expect(await turn('list the challenges', inertiaNew)).toEqual({
      calls: [{ tool: 'navigate', input: { page: 'challenges' } }],
      answer: 'Opened the challenges page.',
    })
  })

  it('"Switch to the dark theme" on the guide\'s settings page asks to confirm the theme', async () => {
    expect(await turn('Switch to the dark theme', confirming(guideSettings))).toEqual({
      calls: [{ tool: 'settings.setTheme', input: dark }],
      answer: 'A confirmation is waiting in the page: Switch to the dark theme. Approve or reject it there.',
    })
  })

  it.each([
    'Switch to the dark theme',
    'Switch the colour theme of the app to dark',
    'set theme dark',
    'go to dark theme',
  ])('on the guide\'s home page, "%s" opens no page made of its words', async (message) => {
    const { calls, answer } = await turn(message, guideHome)
    expect(calls).toEqual([])
    expect(answer).not.toMatch(/Opened/)
  })

  it("an empty form submitted is answered in plain words, not the schema checker's", () => {
    expect(
      run('submit it', inertiaNew, [], {
        status: 'invalid',
        issues: [{ path: 'title', message: 'Missing required property' }],
      }),
    ).toEqual({
      text: 'Nothing was saved. The page did not accept the title: it is required and was left empty.',
    })
  })
})
