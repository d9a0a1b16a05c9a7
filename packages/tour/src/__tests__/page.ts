// Bundled for Chromium: a two-page app (client-side navigation between "home" and "challenges"),
// a tour over it, and an inline confirm handler the test answers.

import { type ConfirmOutcome, createToolmark, ok, type Scope } from '@toolmark/core'
import { registerDomForm } from '@toolmark/forms/dom'
import { createTourRunner, domOverlay, type TourOutcome } from '../index.ts'

let answer: ((o: ConfirmOutcome) => void) | undefined
const confirms: string[] = []
const tm = createToolmark({
  confirm: (req) =>
    new Promise<ConfirmOutcome>((resolve) => {
      confirms.push(req.summary)
      answer = resolve
    }),
})
const app = document.getElementById('app')!
let page: Scope | undefined
let formHandle: { dispose(): void } | undefined

function home(): void {
  formHandle?.dispose()
  page?.dispose()
  app.innerHTML = '<h1>Home</h1><button id="open">Challenges</button>'
  page = tm.scope('home')
  page.register({
    name: 'open',
    description: 'Open the challenges page',
    hints: { readOnly: true },
    anchors: { tool: '#open' },
    run: () => {
      // A client-side navigation: the next page's tools appear a little later.
      setTimeout(challenges, 80)
      return ok()
    },
  })
}

function challenges(): void {
  page?.dispose()
  page = undefined
  app.innerHTML = `<h1>New challenge</h1>
    <form id="create" onsubmit="event.preventDefault()">
      <label>Title <input name="title" required></label>
      <label>Secret <input name="secret" type="password"></label>
    </form>`
  formHandle = registerDomForm(tm, app.querySelector('form')!, {
    name: 'challenges',
    description: 'create a challenge',
    summary: 'Create the challenge',
    submit: () => ok({ id: 1 }),
  })
}

const outcomes: TourOutcome[] = []
const runner = createTourRunner(tm, {
  // The test marks what the dialog must not cover (the chat input) with `data-avoid`.
  overlay: domOverlay({ avoid: '[data-avoid]' }),
  waitForToolMs: 1000,
  onEnd: (outcome) => outcomes.push(outcome),
  tours: [
    {
      id: 'create-challenge',
      title: 'Create a challenge',
      description: 'show me how to create a challenge',
      steps: [
        { tool: 'home.open', text: 'Open the challenges page.' },
        {
          tool: 'challenges.fill',
          input: { title: 'Robots' },
          param: 'title',
          auto: true,
          text: 'We fill in the title.',
        },
        { tool: 'challenges.submit', text: 'Submit it; you will be asked to confirm.' },
      ],
    },
    {
      id: 'broken',
      title: 'Broken',
      description: 'a tour whose tool never appears',
      steps: [{ tool: 'nowhere.tool', text: 'Never shown.' }],
    },
  ],
})
const start = (id: string) => runner.start(id)
home()
Object.assign(window, {
  tm,
  runner,
  start,
  outcomes,
  confirms,
  approve: () => answer?.({ approved: true }),
  reject: () => answer?.({ approved: false }),
  home,
  ready: true,
})
