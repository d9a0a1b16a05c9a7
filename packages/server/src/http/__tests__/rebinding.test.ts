import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { testServers } from '../../__tests__/support/test-server.ts'
import { checkOrigin, isLoopbackName } from '../app.ts'

const server = testServers()

/** An HTTP request with headers `fetch` will not set (`Host`), as a rebinding attacker's page sends them. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; setCookie: string[] | undefined; body: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          setCookie: res.headers['set-cookie'],
          body,
          type: res.headers['content-type'],
        }),
      )
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

/** Opens a WebSocket with the given headers and resolves with its close code. */
function socketClose(url: string, conversation: string, headers: Record<string, string>): Promise<number> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${conversation}`, {
    headers,
  })
  ws.on('error', () => {})
  return new Promise((resolve) => ws.once('close', (code) => resolve(code)))
}

describe('DNS rebinding: Host and Origin are checked against an allowlist before any work', () => {
  it('refuses a rebound name with 403 JSON and creates no session, user or conversation', async () => {
    const t = await server()
    const port = t.server.port
    const attacker = `rebind.attacker.example:${port}`
    const origin = `http://${attacker}`
    for (const [method, path] of [
      ['POST', '/api/conversations'],
      ['GET', '/'],
      ['GET', '/favicon.ico'],
      ['GET', '/api/conversations/x/events'],
    ] as const) {
      const response = await raw(`${t.server.url}${path}`, { method, headers: { host: attacker, origin } })
      expect(response.status, `${method} ${path}`).toBe(403)
      expect(response.type).toContain('application/json')
      expect(JSON.parse(response.body)).toEqual({
        error: {
          code: 'host_not_allowed',
          message: 'This server answers only on loopback names and the origins listed in ALLOWED_ORIGINS',
        },
      })
      expect(response.setCookie).toBeUndefined()
    }
    expect(await t.server.store.countSessions()).toBe(0)
  })

  it("refuses a rebound name even with a valid session cookie (the victim's own browser)", async () => {
    const t = await server()
    const victim = await t.browser()
    const conversation = await victim.createConversation()
    const host = `rebind.attacker.example:${t.server.port}`
    const headers = { host, origin: `http://${host}`, cookie: victim.cookie }
    const post = await raw(`${t.server.url}/api/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'delete everything' }),
    })
    expect(post.status).toBe(403)
    expect((await raw(`${t.server.url}/api/conversations/${conversation}`, { headers })).status).toBe(403)
    expect(await socketClose(t.server.url, conversation, headers)).toBe(4403)
    expect(await t.server.store.listMessages(conversation)).toEqual([])
  })

  it('accepts loopback names on any port, and refuses a foreign or null Origin on them', async () => {
    const t = await server()
    const port = t.server.port
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `127.0.0.2:${port}`, `[::1]:${port}`]) {
      const response = await raw(`${t.server.url}/api/conversations`, {
        method: 'POST',
        headers: { host, origin: `http://${host}` },
      })
      expect(response.status, host).toBe(201)
    }
    for (const origin of ['https://evil.example', 'null', `http://localhost:${port + 1}`]) {
      const response = await raw(`${t.server.url}/api/conversations`, {
        method: 'POST',
        headers: { host: `127.0.0.1:${port}`, origin },
      })
      expect(response.status, origin).toBe(403)
      expect(JSON.parse(response.body).error.code).toBe('cross_origin')
    }
  })

  it('accepts a public origin listed in ALLOWED_ORIGINS, over HTTP and WebSocket', async () => {
    const t = await server({ config: { allowedOrigins: ['https://demo.example.com'] } })
    const headers = { host: 'demo.example.com', origin: 'https://demo.example.com' }
    const created = await raw(`${t.server.url}/api/conversations`, { method: 'POST', headers })
    expect(created.status).toBe(201)
    const cookie = created.setCookie![0]!.split(';')[0]!
    const { id } = JSON.parse(created.body) as { id: string }
    const ws = new WebSocket(`${t.server.url.replace(/^http/, 'ws')}/toolmark/ws?conversation=${id}`, {
      headers: { ...headers, cookie },
    })
    await new Promise((resolve, reject) => {
      ws.once('open', resolve)
      ws.once('error', reject)
    })
    const closed = new Promise<number>((resolve) => ws.once('close', resolve))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(ws.readyState).toBe(WebSocket.OPEN) // not closed 4401/4403
    ws.close()
    expect(await closed).toBe(1005)
    const other = await raw(`${t.server.url}/`, { headers: { host: 'other.example.com' } })
    expect(other.status).toBe(403)
  })

  it('checks Host and Origin on POST /v1/chat/completions too (the OpenAI-compatible planner)', async () => {
    const t = await server()
    const port = t.server.port
    const body = JSON.stringify({ model: 'embedded', messages: [{ role: 'user', content: 'hello' }] })
    const post = (headers: Record<string, string>) =>
      raw(`${t.server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      })
    const rebound = await post({ host: `rebind.attacker.example:${port}` })
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body).error.code).toBe('host_not_allowed')
    const foreign = await post({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    expect(JSON.parse(foreign.body).error.code).toBe('cross_origin')
    const allowed = await post({ host: `127.0.0.1:${port}` })
    expect(allowed.status).toBe(200)
    expect(JSON.parse(allowed.body).object).toBe('chat.completion')
    const sameOrigin = await post({ host: `localhost:${port}`, origin: `http://localhost:${port}` })
    expect(sameOrigin.status).toBe(200)
    expect(sameOrigin.setCookie).toBeUndefined() // no session for this route
  })

  it('answers a WebSocket upgrade on another path with a JSON 404', async () => {
    const t = await server()
    const response = await raw(`${t.server.url}/elsewhere`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    })
    expect(response.status).toBe(404)
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'not_found', message: 'No WebSocket at this path' },
    })
  })

  it('checkOrigin and isLoopbackName', () => {
    expect(isLoopbackName('localhost')).toBe(true)
    expect(isLoopbackName('app.localhost')).toBe(true)
    expect(isLoopbackName('127.255.0.1')).toBe(true)
    expect(isLoopbackName('[::1]')).toBe(true)
    expect(isLoopbackName('localhost.attacker.example')).toBe(false)
    expect(isLoopbackName('127.0.0.1.nip.io')).toBe(false)
    expect(checkOrigin(undefined, undefined)).toBe('host')
    expect(checkOrigin('localhost:1/x', undefined)).toBe('host')
    expect(checkOrigin('user@localhost:1', undefined)).toBe('host')
    expect(checkOrigin('localhost:8787', undefined)).toBeUndefined()
    expect(checkOrigin('localhost:8787', 'http://localhost:8787')).toBeUndefined()
    expect(checkOrigin('evil.example:8787', 'http://evil.example:8787')).toBe('host')
  })
})
