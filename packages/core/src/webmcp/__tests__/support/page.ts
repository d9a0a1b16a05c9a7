// The app side of the Chromium test: a registry with a confirm queue, its tools and webmcp().
// /app.html gets the main tools; /next.html (where navigation tools lead) gets its own.
import { createConfirmQueue, createToolmark, fromJsonSchema, ok } from '../../../index.ts'
import { webmcp } from '../../index.ts'

const queue = createConfirmQueue()
const tm = createToolmark({ confirm: queue.handler })
const runs: string[] = []
const errors: Array<{ code: string; message: string }> = []
const unhandled: string[] = []
tm.events.on('error', ({ code, message }) => errors.push({ code, message }))
window.addEventListener('unhandledrejection', (e) => unhandled.push(String(e.reason)))

let modalOpen = false
const modal = tm.scope('modal', { when: () => modalOpen })

if (location.pathname === '/next.html') {
  tm.register({
    name: 'arrived',
    description: 'On the next page.',
    hints: { readOnly: true },
    run: () => ok(),
  })
} else {
  tm.register({
    name: 'search',
    title: 'Search',
    description: 'Search challenges by keyword.',
    input: fromJsonSchema<{ query: string }>({
      type: 'object',
      properties: { query: { type: 'string', minLength: 1 } },
      required: ['query'],
      additionalProperties: false,
    }),
    hints: { readOnly: true, untrustedContent: true },
    run: ({ query }) => {
      runs.push(`search:${query}`)
      return ok({ results: [`${query} challenge`] })
    },
  })
  tm.register({
    name: 'create',
    description: 'Create a challenge.',
    summary: (input) => `Create challenge "${(input as { name: string }).name}"`,
    jsonSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    hints: { consequential: true },
    run: (input) => {
      runs.push(`create:${(input as { name: string }).name}`)
      return ok({ id: 7 })
    },
  })
  tm.register({
    name: 'go',
    description: 'Open the next page: answers first, then navigates.',
    hints: { readOnly: true },
    run: () => {
      setTimeout(() => {
        location.href = '/next.html'
      }, 0)
      return ok({ navigating: true })
    },
  })
  tm.register({
    name: 'leave',
    description: 'Navigates away before answering.',
    hints: { readOnly: true },
    run: () => {
      location.href = '/next.html'
      return new Promise<never>(() => {})
    },
  })
  modal.register({
    name: 'close',
    description: 'Close the modal.',
    hints: { readOnly: true },
    run: () => ok(),
  })
}

let detach = tm.use(webmcp())

Object.assign(window, {
  app: {
    runs,
    errors,
    unhandled,
    pending: () =>
      queue.getPending().map((r) => ({ confirmId: r.confirmId, tool: r.tool, summary: r.summary })),
    approve: (id: string) => queue.approve(id),
    reject: (id: string) => queue.reject(id),
    setModal(open: boolean) {
      modalOpen = open
      modal.setWhen(() => modalOpen)
    },
    detach: () => detach(),
    attach: () => {
      detach = tm.use(webmcp())
    },
  },
  ready: true,
})
