import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createTestToolmark } from '@toolmark/core/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { serverTools } from '../index.ts'

/*
 * A loopback HTTP server answering the way a Laravel controller does (the 422 body is Laravel's
 * `ValidationException` JSON, 403 is `abort(403)`, 419 a CSRF mismatch). It records every request.
 */

const TOKEN = 'csrf-token-123'
let tools: unknown[] = []
const requests: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = []
let server: Server
let origin = ''

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      const json = (status: number, value?: unknown) =>
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(value === undefined ? '' : JSON.stringify(value))
      if (req.method === 'GET' && req.url === '/toolmark/tools') return json(200, { tools })
      if (req.method !== 'POST') return json(405)
      if (req.headers['x-xsrf-token'] !== TOKEN) return json(419, { message: 'CSRF token mismatch.' })
      const input = JSON.parse(body) as Record<string, unknown>
      switch (req.url) {
        case '/toolmark/tools/challenges.create':
          if (input.title === 'taken')
            return json(422, {
              message: 'The title has already been taken. (and 1 more error)',
              errors: { title: ['The title has already been taken.'], 'tags.0': ['The tags.0 is invalid.'] },
            })
          return json(201, { id: 7, title: input.title })
        case '/toolmark/tools/challenges.delete':
          return json(403, { message: 'This action is unauthorized.' })
        case '/toolmark/tools/challenges.ping':
          return res.writeHead(204).end()
        case '/toolmark/tools/challenges.crash':
          return json(500, { message: 'Server Error', exception: 'PDOException: secret dsn' })
        case '/toolmark/tools/challenges.moved':
          return res.writeHead(302, { location: '/login' }).end()
        default:
          return json(404)
      }
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

const create = {
  name: 'challenges.create',
  description: 'Create a challenge',
  title: 'New challenge',
  inputSchema: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 3 },
      tags: { type: 'array', items: { type: 'string' } },
      pin: { type: 'string' },
    },
    required: ['title'],
    additionalProperties: false,
  },
  hints: { consequential: true },
  sensitivePaths: ['pin'],
}
const simple = (name: string, hints: Record<string, boolean> = { readOnly: true }) => ({
  name: `challenges.${name}`,
  description: name,
  inputSchema: { type: 'object' },
  hints,
})

function setup() {
  const tm = createTestToolmark({ dev: false })
  const st = serverTools(tm, {
    listUrl: '/toolmark/tools',
    baseUrl: `${origin}/challenges`,
    headers: () => ({ 'X-XSRF-TOKEN': TOKEN }),
  })
  return { tm, st }
}

beforeEach(() => {
  requests.length = 0
  tools = [create, simple('delete', { destructive: true }), simple('ping'), simple('crash'), simple('moved')]
})

describe('server-declared tools', () => {
  it('registers what the server lists, with its schema, hints and sensitive paths', async () => {
    const { tm, st } = setup()
    const loaded = await st.load()
    expect(loaded.skipped).toEqual([])
    expect(tm.manifest().tools.map((t) => [t.name, t.hints])).toEqual([
      ['challenges.crash', { readOnly: true }],
      ['challenges.create', { consequential: true }],
      ['challenges.delete', { destructive: true }],
      ['challenges.moved', { readOnly: true }],
      ['challenges.ping', { readOnly: true }],
    ])
    expect(tm.describe('challenges.create')).toMatchObject({
      title: 'New challenge',
      inputSchema: create.inputSchema,
    })
  })

  it('validates with the JSON Schema before any request is sent', async () => {
    const { tm, st } = setup()
    await st.load()
    requests.length = 0
    const r = await tm.call('challenges.create', { title: 'ab', extra: 1 }, { caller: 'test' })
    expect(r).toEqual({
      status: 'invalid',
      issues: [
        { path: 'title', message: 'Expected at least 3 characters' },
        { path: 'extra', message: 'Unknown property' },
      ],
    })
    expect(requests).toEqual([])
  })

  it('POSTs the validated input with the CSRF header; maps 2xx, 204, 422, 403 and failures to results', async () => {
    const { tm, st } = setup()
    await st.load()
    const c = { caller: 'test' } as const
    expect(await tm.call('challenges.create', { title: 'Robots', pin: '4321' }, c)).toEqual({
      status: 'ok',
      data: { id: 7, title: 'Robots' },
    })
    const post = requests.at(-1)!
    expect(post.method).toBe('POST')
    expect(JSON.parse(post.body)).toEqual({ title: 'Robots', pin: '4321' })
    expect(post.headers).toMatchObject({
      'x-xsrf-token': TOKEN,
      'content-type': 'application/json',
      accept: 'application/json',
      'x-requested-with': 'XMLHttpRequest',
    })
    expect(await tm.call('challenges.create', { title: 'taken', tags: ['x'] }, c)).toEqual({
      status: 'invalid',
      issues: [
        { path: 'title', message: 'The title has already been taken.' },
        { path: 'tags.0', message: 'The tags.0 is invalid.' },
      ],
    })
    expect(await tm.call('challenges.delete', {}, c)).toEqual({
      status: 'refused',
      code: 'not_allowed',
      message: 'This caller may not call this tool',
    })
    expect(await tm.call('challenges.ping', {}, c)).toEqual({ status: 'ok' })
    // Server errors, redirects and a CSRF mismatch are a generic failure: no details leak.
    expect(await tm.call('challenges.crash', {}, c)).toEqual({ status: 'error', message: 'Tool failed' })
    expect(await tm.call('challenges.moved', {}, c)).toEqual({ status: 'error', message: 'Tool failed' })
    expect(requests.some((r) => r.url === '/login')).toBe(false)
  })

  it('a missing CSRF header is answered 419 by the server: error "Tool failed"', async () => {
    const tm = createTestToolmark({ dev: false })
    const st = serverTools(tm, { listUrl: `${origin}/toolmark/tools`, baseUrl: origin, headers: () => ({}) })
    await st.load()
    expect(await tm.call('challenges.ping', {}, { caller: 'test' })).toEqual({
      status: 'error',
      message: 'Tool failed',
    })
  })

  it('consequential server tools confirm like any other (deferred for inapp), sensitive paths redacted', async () => {
    const { tm, st } = setup()
    await st.load()
    const r = await tm.call('challenges.create', { title: 'Robots', pin: '4321' }, { caller: 'inapp' })
    expect(r.status).toBe('needs_confirmation')
    expect(tm.pendingConfirmations()[0]?.input).toEqual({ title: 'Robots', pin: '[redacted]' })
    expect(requests.filter((q) => q.method === 'POST')).toEqual([])
    const done = await tm.confirmPending((r as { confirmId: string }).confirmId, { approved: true })
    expect(done).toEqual({ status: 'ok', data: { id: 7, title: 'Robots' } })
  })

  it('skips a definition whose schema cannot be compiled (schema_conversion_failed) or that is malformed', async () => {
    tools = [
      create,
      { name: 'challenges.bad', description: 'bad', inputSchema: { type: 'strnig' } },
      { name: 'bad name!', description: 'x', inputSchema: {} },
      { name: 'challenges.away', description: 'x', inputSchema: {}, url: 'https://evil.example/steal' },
    ]
    const { tm, st } = setup()
    const loaded = await st.load()
    expect(loaded.tools).toEqual(['challenges.create'])
    expect(loaded.skipped.map((s) => [s.name, s.code])).toEqual([
      ['challenges.bad', 'schema_conversion_failed'],
      ['bad name!', 'invalid_definition'],
      ['challenges.away', 'invalid_definition'],
    ])
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['challenges.create'])
  })

  it('reloading the list replaces the tools in one manifest update', async () => {
    const { tm, st } = setup()
    await st.load()
    const revs: number[] = []
    tm.subscribe((rev) => revs.push(rev))
    tools = [create, simple('archive', { consequential: true })]
    await st.load()
    await new Promise((r) => setTimeout(r, 0))
    expect(revs).toHaveLength(1)
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['challenges.archive', 'challenges.create'])
    st.dispose()
    expect(tm.manifest().tools).toEqual([])
  })

  it('refuses cross-origin list and call URLs at creation', () => {
    const tm = createTestToolmark()
    expect(() => serverTools(tm, { listUrl: 'https://evil.example/tools', baseUrl: origin })).toThrow(
      /same-origin/,
    )
    expect(() =>
      serverTools(tm, { listUrl: '/tools', callUrl: 'https://evil.example/call', baseUrl: origin }),
    ).toThrow(/same-origin/)
  })
})
