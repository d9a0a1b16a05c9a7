import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Pusher from 'pusher'
import { type WebSocket, WebSocketServer } from 'ws'

/** A request recorded by the server's POST endpoint (echoTransport's `postUrl`). */
export interface RecordedPost {
  path: string
  headers: IncomingMessage['headers']
  body: string
}

/** A `client-*` event the server relayed (or refused to relay). */
export interface RecordedClientEvent {
  event: string
  channel: string
  data: unknown
  from: string
  relayedTo: number
}

export interface PusherServerOptions {
  appId?: string
  key?: string
  secret?: string
  /**
   * `/broadcasting/auth` check. `user` comes from the `X-Test-User` request header (standing in for
   * a session). Default: any user may join any channel.
   */
  authorize?: (user: string | undefined, channel: string) => boolean | Promise<boolean>
  /** Path of the POST endpoint that records bodies, and of every path below it (default `/toolmark/bridge`). */
  postPath?: string
  /** Answer for the POST endpoint (default 204). Return a 3xx with `location` to test redirects. */
  respond?: (post: RecordedPost) => { status: number; headers?: Record<string, string> }
}

export interface PusherServer {
  port: number
  appId: string
  key: string
  secret: string
  /** `http://127.0.0.1:<port>` */
  url: string
  /** `${url}/broadcasting/auth` */
  authEndpoint: string
  /** `${url}${postPath}` */
  postUrl: string
  /** Bodies and headers received on `postPath`, in order. */
  posts: RecordedPost[]
  clientEvents: RecordedClientEvent[]
  /** Socket ids currently subscribed to `channel` (full name, e.g. `private-toolmark.1.2`). */
  subscribers(channel: string): string[]
  /** Broadcast through the real `pusher` server SDK and this server's signed REST endpoint. */
  trigger(channel: string, event: string, data: unknown): Promise<void>
  /** Replace the POST endpoint's answer. */
  respond: NonNullable<PusherServerOptions['respond']>
  close(): Promise<void>
}

interface Conn {
  socketId: string
  ws: WebSocket
  channels: Map<string, { userId?: string }>
}

const sign = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex')
const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/**
 * A Pusher protocol 7 server on `ws` + `node:http` for tests (what Reverb/soketi do, minus scale):
 * `pusher:connection_established`, private/presence subscriptions checked against
 * `key:HMAC-SHA256(secret, "socket_id:channel[:channel_data]")`, ping/pong, `client-*` events relayed to
 * the other subscribers of private/presence channels only, `/broadcasting/auth`, the signed REST
 * trigger `POST /apps/:id/events`, and a POST endpoint that records what it receives.
 */
export async function startPusherServer(options: PusherServerOptions = {}): Promise<PusherServer> {
  const appId = options.appId ?? '1'
  const key = options.key ?? 'test-key'
  const secret = options.secret ?? 'test-secret'
  const postPath = options.postPath ?? '/toolmark/bridge'
  const authorize = options.authorize ?? (() => true)
  const posts: RecordedPost[] = []
  const clientEvents: RecordedClientEvent[] = []
  const conns = new Set<Conn>()
  let respond: NonNullable<PusherServerOptions['respond']> = options.respond ?? (() => ({ status: 204 }))

  const send = (ws: WebSocket, event: string, data: unknown, channel?: string) =>
    ws.send(JSON.stringify({ event, ...(channel === undefined ? {} : { channel }), data }))
  const members = (channel: string) => [...conns].filter((c) => c.channels.has(channel))

  const http = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500)
      res.end(String(error))
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value))

    if (req.method === 'POST' && url.pathname === '/broadcasting/auth') {
      const form = new URLSearchParams(body)
      const socketId = form.get('socket_id') ?? ''
      const channel = form.get('channel_name') ?? ''
      const user = req.headers['x-test-user'] as string | undefined
      if (!/^(private|presence)-/.test(channel) || !(await authorize(user, channel))) {
        return void json(403, { message: 'Forbidden' })
      }
      if (channel.startsWith('presence-')) {
        const channelData = JSON.stringify({ user_id: user ?? 'guest', user_info: {} })
        return void json(200, {
          auth: `${key}:${sign(secret, `${socketId}:${channel}:${channelData}`)}`,
          channel_data: channelData,
        })
      }
      return void json(200, { auth: `${key}:${sign(secret, `${socketId}:${channel}`)}` })
    }

    if (req.method === 'POST' && url.pathname === `/apps/${appId}/events`) {
      const params = [...url.searchParams].filter(([k]) => k !== 'auth_signature')
      const query = params
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `${k}=${v}`)
        .join('&')
      const expected = sign(secret, `POST\n${url.pathname}\n${query}`)
      const q = url.searchParams
      const fresh = Math.abs(Date.now() / 1000 - Number(q.get('auth_timestamp'))) < 600
      const md5 = createHash('md5').update(body, 'utf8').digest('hex')
      if (
        q.get('auth_key') !== key ||
        q.get('auth_version') !== '1.0' ||
        !fresh ||
        q.get('body_md5') !== md5 ||
        !same(q.get('auth_signature') ?? '', expected)
      ) {
        return void json(401, { error: 'Invalid signature' })
      }
      const event = JSON.parse(body) as {
        name: string
        data: string
        channels?: string[]
        channel?: string
        socket_id?: string
      }
      for (const channel of event.channels ?? (event.channel ? [event.channel] : [])) {
        for (const c of members(channel))
          if (c.socketId !== event.socket_id) send(c.ws, event.name, event.data, channel)
      }
      return void json(200, {})
    }

    if (req.method === 'POST' && (url.pathname === postPath || url.pathname.startsWith(`${postPath}/`))) {
      const post: RecordedPost = { path: url.pathname, headers: req.headers, body }
      posts.push(post)
      const answer = respond(post)
      res.writeHead(answer.status, answer.headers).end()
      return
    }

    res.writeHead(404).end()
  }

  const wss = new WebSocketServer({ server: http, path: `/app/${key}` })
  wss.on('connection', (ws) => {
    const conn: Conn = { socketId: `${randomInt(1e9)}.${randomInt(1e9)}`, ws, channels: new Map() }
    conns.add(conn)
    ws.on('close', () => conns.delete(conn))
    send(
      ws,
      'pusher:connection_established',
      JSON.stringify({ socket_id: conn.socketId, activity_timeout: 120 }),
    )
    ws.on('message', (raw) => {
      let msg: { event?: string; channel?: string; data?: unknown }
      try {
        msg = JSON.parse(raw.toString())
      } catch {
        return
      }
      const data = (typeof msg.data === 'string' ? safeParse(msg.data) : msg.data) as Record<string, unknown>
      if (msg.event === 'pusher:ping') return send(ws, 'pusher:pong', '{}')
      if (msg.event === 'pusher:subscribe') return subscribe(conn, data ?? {})
      if (msg.event === 'pusher:unsubscribe') return void conn.channels.delete(String(data?.channel))
      if (
        typeof msg.event === 'string' &&
        msg.event.startsWith('client-') &&
        typeof msg.channel === 'string'
      ) {
        const channel = msg.channel
        const allowed = /^(private|presence)-/.test(channel) && conn.channels.has(channel)
        const others = allowed ? members(channel).filter((c) => c !== conn) : []
        const userId = conn.channels.get(channel)?.userId
        for (const c of others) {
          c.ws.send(
            JSON.stringify({
              event: msg.event,
              channel,
              data: msg.data,
              ...(userId ? { user_id: userId } : {}),
            }),
          )
        }
        clientEvents.push({
          event: msg.event,
          channel,
          data: msg.data,
          from: conn.socketId,
          relayedTo: others.length,
        })
      }
    })
  })

  function subscribe(conn: Conn, data: Record<string, unknown>): void {
    const channel = String(data.channel ?? '')
    const channelData = typeof data.channel_data === 'string' ? data.channel_data : undefined
    if (/^(private|presence)-/.test(channel)) {
      const toSign = `${conn.socketId}:${channel}${channelData === undefined ? '' : `:${channelData}`}`
      const auth = typeof data.auth === 'string' ? data.auth : ''
      if (!same(auth, `${key}:${sign(secret, toSign)}`)) {
        send(
          conn.ws,
          'pusher:subscription_error',
          { type: 'AuthError', error: 'Invalid signature', status: 401 },
          channel,
        )
        return
      }
    }
    const userId =
      channelData === undefined
        ? undefined
        : String((safeParse(channelData) as { user_id?: unknown })?.user_id)
    conn.channels.set(channel, userId === undefined ? {} : { userId })
    if (channel.startsWith('presence-')) {
      const hash: Record<string, unknown> = {}
      for (const c of members(channel)) {
        const id = c.channels.get(channel)?.userId
        if (id !== undefined) hash[id] = {}
      }
      const presence = { ids: Object.keys(hash), hash, count: Object.keys(hash).length }
      send(conn.ws, 'pusher_internal:subscription_succeeded', JSON.stringify({ presence }), channel)
    } else {
      send(conn.ws, 'pusher_internal:subscription_succeeded', '{}', channel)
    }
  }

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const port = (http.address() as AddressInfo).port
  const url = `http://127.0.0.1:${port}`
  const sdk = new Pusher({ appId, key, secret, host: '127.0.0.1', port: String(port), useTLS: false })

  return {
    port,
    appId,
    key,
    secret,
    url,
    authEndpoint: `${url}/broadcasting/auth`,
    postUrl: `${url}${postPath}`,
    posts,
    clientEvents,
    subscribers: (channel) => members(channel).map((c) => c.socketId),
    async trigger(channel, event, data) {
      await sdk.trigger(channel, event, data)
    },
    get respond() {
      return respond
    },
    set respond(value) {
      respond = value
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const c of conns) c.ws.terminate()
        wss.close()
        http.closeAllConnections()
        http.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
