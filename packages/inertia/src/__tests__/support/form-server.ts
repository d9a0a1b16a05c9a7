import { type InertiaTestServer, startInertiaServer } from './inertia-server.ts'

/** The fields of the test form (title required, ≥ 3 characters). */
export const FORM_FIELDS = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 3 },
    points: { type: 'integer', minimum: 0 },
    secret: { type: 'string' },
  },
  required: ['title'],
} as const

export interface FormServer {
  server: InertiaTestServer
  /** The bodies of the accepted POSTs to /challenges. */
  saved: unknown[]
  /** Holds POSTs until the returned function is called. */
  hold(): () => void
}

/**
 * The loopback Inertia server of the form binding tests: `/challenges/create` is the form page; a
 * POST to `/challenges` answers like Laravel's Inertia middleware: a title `Taken` fails validation
 * (a redirect back, the errors in the next page's `errors` prop), anything else is saved and
 * redirected to `/challenges/1`.
 */
export async function startFormServer(): Promise<FormServer> {
  let errorsNext: Record<string, string> = {}
  let gate: Promise<void> | undefined
  const saved: unknown[] = []
  const server: InertiaTestServer = await startInertiaServer({
    '/challenges/create': () => {
      const errors = errorsNext
      errorsNext = {}
      return { component: 'Challenges/Create', props: { errors } }
    },
    '/challenges': async () => {
      const body = JSON.parse(server.requests.at(-1)?.body ?? '{}') as { title?: string }
      await gate
      if (body.title === 'Taken') {
        errorsNext = { title: 'The title has already been taken.' }
        return { redirect: '/challenges/create' }
      }
      saved.push(body)
      return { redirect: '/challenges/1' }
    },
    '/challenges/1': { component: 'Challenges/Show' },
  })
  return {
    server,
    saved,
    hold() {
      let release = () => {}
      gate = new Promise((resolve) => {
        release = resolve
      })
      return () => {
        gate = undefined
        release()
      }
    },
  }
}

/** The Inertia page object the tests start on. */
export const CREATE_PAGE = {
  component: 'Challenges/Create',
  props: { errors: {} },
  url: '/challenges/create',
  version: '1',
  flash: {},
  rescuedProps: [],
  rememberedState: {},
}
