import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StaticServer, startStaticServer } from '../../../../tests/support/static-server.ts'
import { type PostMessageSource, postMessageTransport } from '../post-message.ts'

/*
 * Real Chromium, three loopback origins (A hosts the parent page, B the peer iframe, C is where the
 * peer frame is navigated to at the end). The transport runs as an esbuild bundle of post-message.ts.
 */

const CHILD = `<!doctype html><script type="module">
const params = new URLSearchParams(location.search)
const role = params.get('role')
const parentOrigin = params.get('parent')
if (role === 'peer') {
  const { postMessageTransport } = await import(params.get('bundle'))
  const t = postMessageTransport({ target: parent, targetOrigin: parentOrigin, allowedOrigins: [parentOrigin] })
  t.onMessage((m) => t.send({ echo: m }))
  // Same source and origin, but no valid envelope: all ignored by the parent's transport.
  parent.postMessage({ from: 'peer', noEnvelope: true }, parentOrigin)
  parent.postMessage({ toolmark: 2, message: { from: 'peer', wrongVersion: true } }, parentOrigin)
  parent.postMessage({ toolmark: 1 }, parentOrigin)
  parent.postMessage(JSON.stringify({ toolmark: 1, message: { from: 'peer', string: true } }), parentOrigin)
  t.send({ hello: 'peer' })
} else {
  // A valid envelope from the wrong window, the wrong origin or an opaque ('null') origin.
  parent.postMessage({ toolmark: 1, message: { from: role } }, parentOrigin)
}
</script>`

const PARENT = `<!doctype html><body><script type="module">
import * as transport from '/post-message.js'
window.transport = transport
window.raw = []
const frameName = (source) =>
  [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === source)?.name ?? 'unknown'
window.addEventListener('message', (e) => window.raw.push({ origin: e.origin, from: frameName(e.source), data: e.data }))
window.ready = true
</script></body>`

let browser: Browser
let page: Page
let a: StaticServer
let b: StaticServer
let c: StaticServer

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('../post-message.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    conditions: ['@toolmark/source'],
    write: false,
  })
  const js = bundle.outputFiles[0]!.text
  const routes = { '/parent.html': PARENT, '/child.html': CHILD, '/post-message.js': js }
  ;[a, b, c] = await Promise.all([
    startStaticServer(routes),
    startStaticServer(routes),
    startStaticServer(routes),
  ])
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  page = await browser.newPage()
  await page.goto(`${a.origin}/parent.html`)
  await page.waitForFunction(() => (window as { ready?: boolean }).ready === true)
})

afterAll(async () => {
  await browser?.close()
  await Promise.all([a?.close(), b?.close(), c?.close()])
})

describe('postMessageTransport in Chromium', () => {
  it('round-trips between two origins and ignores wrong source, wrong origin, null origin and bad envelopes', async () => {
    const origins = { a: a.origin, b: b.origin, c: c.origin }
    await page.evaluate((o) => {
      const w = window as unknown as Record<string, unknown> & {
        transport: typeof import('../post-message.ts')
      }
      const frame = (name: string, src: string, sandbox?: string) => {
        const el = document.createElement('iframe')
        el.name = name
        if (sandbox !== undefined) el.setAttribute('sandbox', sandbox)
        el.src = src
        document.body.append(el)
        return el
      }
      const child = (origin: string, role: string) =>
        `${origin}/child.html?role=${role}&parent=${encodeURIComponent(o.a)}&bundle=${encodeURIComponent(`${origin}/post-message.js`)}`

      const received: unknown[] = []
      const peer = frame('peer', child(o.b, 'peer'))
      const t = w.transport.postMessageTransport({
        target: peer.contentWindow!,
        targetOrigin: o.b,
        allowedOrigins: [o.b],
      })
      t.onMessage((m) => {
        received.push(m)
        if ((m as { hello?: string }).hello === 'peer') void t.send({ ping: 1 })
      })
      w.received = received
      w.peerTransport = t

      const sandboxReceived: unknown[] = []
      const sandboxed = frame('sandboxed', child(o.b, 'sandboxed'), 'allow-scripts')
      w.transport
        .postMessageTransport({ target: sandboxed.contentWindow!, targetOrigin: o.b, allowedOrigins: [o.b] })
        .onMessage((m) => sandboxReceived.push(m))
      w.sandboxReceived = sandboxReceived

      frame('intruder', child(o.b, 'intruder'))
    }, origins)

    type Log = { origin: string; from: string; data: unknown }
    const state = () =>
      page.evaluate(() => {
        const w = window as unknown as { raw: Log[]; received: unknown[]; sandboxReceived: unknown[] }
        return { raw: w.raw, received: w.received, sandboxReceived: w.sandboxReceived }
      })
    // Every hostile message reached the window (raw listener) before we look at what the transport passed on.
    await page.waitForFunction(() => {
      const w = window as unknown as { raw: Log[]; received: unknown[] }
      const from = (name: string) => w.raw.filter((l) => l.from === name).length
      return w.received.length >= 2 && from('peer') === 6 && from('intruder') === 1 && from('sandboxed') === 1
    })

    let s = await state()
    expect(s.received).toEqual([{ hello: 'peer' }, { echo: { ping: 1 } }])
    expect(s.sandboxReceived).toEqual([])
    expect(s.raw.find((l) => l.from === 'sandboxed')).toEqual({
      origin: 'null',
      from: 'sandboxed',
      data: { toolmark: 1, message: { from: 'sandboxed' } },
    })
    expect(s.raw.find((l) => l.from === 'intruder')).toMatchObject({ origin: origins.b })
    expect(s.raw.filter((l) => l.from === 'peer').map((l) => l.data)).toEqual([
      { from: 'peer', noEnvelope: true },
      { toolmark: 2, message: { from: 'peer', wrongVersion: true } },
      { toolmark: 1 },
      JSON.stringify({ toolmark: 1, message: { from: 'peer', string: true } }),
      { toolmark: 1, message: { hello: 'peer' } },
      { toolmark: 1, message: { echo: { ping: 1 } } },
    ])

    // The peer frame navigates to origin C: same window (source), wrong origin → ignored.
    await page.evaluate((o) => {
      const peer = document.querySelector<HTMLIFrameElement>('iframe[name=peer]')!
      peer.src = `${o.c}/child.html?role=navigated&parent=${encodeURIComponent(o.a)}`
    }, origins)
    await page.waitForFunction(
      (c) => (window as unknown as { raw: Log[] }).raw.some((l) => l.from === 'peer' && l.origin === c),
      origins.c,
    )
    s = await state()
    expect(s.raw.at(-1)).toEqual({
      origin: origins.c,
      from: 'peer',
      data: { toolmark: 1, message: { from: 'navigated' } },
    })
    expect(s.received).toHaveLength(2)

    const afterClose = await page.evaluate(() => {
      const t = (window as unknown as { peerTransport: { close(): void; send(m: unknown): void } })
        .peerTransport
      t.close()
      try {
        t.send({ late: true })
        return 'sent'
      } catch (error) {
        return String(error)
      }
    })
    expect(afterClose).toMatch(/closed/)
  })

  it("rejects '*' and 'null' at construction in the browser", async () => {
    const errors = await page.evaluate((b) => {
      const { postMessageTransport } = (
        window as unknown as { transport: typeof import('../post-message.ts') }
      ).transport
      const frame = document.createElement('iframe')
      document.body.append(frame)
      const attempt = (targetOrigin: string, allowedOrigins: string[]) => {
        try {
          postMessageTransport({ target: frame.contentWindow!, targetOrigin, allowedOrigins }).close()
          return 'ok'
        } catch (error) {
          return (error as Error).name
        }
      }
      return [
        attempt('*', [b]),
        attempt(b, ['*']),
        attempt(b, ['null']),
        attempt('null', [b]),
        attempt(b, [`${b}/`]),
        attempt(b, [b]),
      ]
    }, b.origin)
    expect(errors).toEqual(['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError', 'ok'])
  })
})

describe('postMessageTransport against scripts in the same page', () => {
  it('ignores a message event a script dispatched itself, even with the right source and origin', async () => {
    const result = await page.evaluate(async (origin) => {
      const { postMessageTransport } = (
        window as unknown as { transport: typeof import('../post-message.ts') }
      ).transport
      const frame = document.createElement('iframe')
      document.body.append(frame)
      const received: unknown[] = []
      const t = postMessageTransport({
        target: frame.contentWindow!,
        targetOrigin: origin,
        allowedOrigins: [origin],
      })
      t.onMessage((m) => received.push(m))
      window.dispatchEvent(
        new MessageEvent('message', {
          data: { toolmark: 1, message: { forged: true } },
          origin,
          source: frame.contentWindow,
        }),
      )
      await new Promise((r) => setTimeout(r, 20))
      t.close()
      frame.remove()
      return received
    }, b.origin)
    expect(result).toEqual([])
  })

  it('refuses this window itself as the target unless sameWindow: true says it is an extension content script', async () => {
    const outcomes = await page.evaluate((origin) => {
      const { postMessageTransport } = (
        window as unknown as { transport: typeof import('../post-message.ts') }
      ).transport
      const attempt = (options: { sameWindow?: boolean }) => {
        try {
          postMessageTransport({
            target: window,
            targetOrigin: origin,
            allowedOrigins: [origin],
            ...options,
          }).close()
          return 'ok'
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`
        }
      }
      return [attempt({}), attempt({ sameWindow: true })]
    }, a.origin)
    expect(outcomes[0]).toMatch(/^TypeError: .*sameWindow: true/)
    expect(outcomes[1]).toBe('ok')
  })
})

describe('postMessageTransport construction', () => {
  const target = { postMessage() {} }
  const self: PostMessageSource = { addEventListener() {}, removeEventListener() {} }
  const make = (targetOrigin: string, allowedOrigins: readonly string[]) => () =>
    postMessageTransport({ target, targetOrigin, allowedOrigins, self })

  it.each([
    ['*'],
    ['null'],
    ['https://app.example.com/'],
    ['https://app.example.com/path'],
    ['https://App.example.com'],
    ['https://app.example.com:443'],
    ['https://user@app.example.com'],
    ['app.example.com'],
    [''],
  ])('rejects %j as an allowed origin or target origin', (origin) => {
    expect(make('https://app.example.com', [origin])).toThrow(TypeError)
    expect(make(origin, ['https://app.example.com'])).toThrow(TypeError)
  })

  it.each([
    ['https://app.example.com'],
    ['http://127.0.0.1:8080'],
    ['http://[::1]:3000'],
    ['chrome-extension://abcdefghijklmnop'],
  ])('accepts the serialized origin %j', (origin) => {
    expect(make(origin, [origin])).not.toThrow()
  })

  it('rejects an empty allowedOrigins list and a missing window', () => {
    expect(make('https://app.example.com', [])).toThrow(TypeError)
    expect(() =>
      postMessageTransport({
        target,
        targetOrigin: 'https://a.example',
        allowedOrigins: ['https://a.example'],
      }),
    ).toThrow(/no window/)
  })

  it('wraps outbound messages in the envelope and refuses to send to a closed window or after close()', () => {
    const posted: unknown[][] = []
    const win = { closed: false, postMessage: (...args: unknown[]) => posted.push(args) }
    const t = postMessageTransport({
      target: win,
      targetOrigin: 'https://agent.example',
      allowedOrigins: ['https://agent.example'],
      self,
    })
    void t.send({ protocol: 1 })
    expect(posted).toEqual([[{ toolmark: 1, message: { protocol: 1 } }, 'https://agent.example']])
    win.closed = true
    expect(() => t.send({})).toThrow(/target window is closed/)
    win.closed = false
    t.close()
    expect(() => t.send({})).toThrow(/closed/)
  })
})
