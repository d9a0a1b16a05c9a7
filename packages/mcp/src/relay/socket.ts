import type { IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'
import {
  MAX_PAIRING_MESSAGE,
  type PairingContextMessage,
  type PairingPromptsMessage,
} from '../protocol/messages.ts'
import { readPairingMessage } from '../protocol/validate.ts'
import { loopbackHost, normalOrigin } from './origins.ts'
import { MAX_PENDING, type Pairing } from './pairing.ts'
import type { Tab, Tabs } from './tabs.ts'

const HELLO_TIMEOUT_MS = 10_000

/**
 * The pages' WebSocket on 127.0.0.1: the upgrade checks `Origin` against the allowlist, `Host`
 * against loopback names and the pending-pairing limit; each socket must say hello first, and every
 * message is read by the pairing validator: a malformed one is dropped and closes the socket
 * (4002, with the reason).
 */
export async function openSocket(options: {
  port: number
  allowed: ReadonlySet<string>
  tabs: Tabs
  pairing: Pairing
  log: (line: string) => void
  /** A paired page's `context` or `prompts`: a problem it returns closes the socket (4002). */
  offers?: (tab: Tab, msg: PairingContextMessage | PairingPromptsMessage) => string | undefined
}): Promise<{ port: number; close: () => Promise<void> }> {
  const { allowed, tabs, pairing, log } = options
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: options.port,
    maxPayload: MAX_PAIRING_MESSAGE,
    verifyClient: (
      info: { origin: string; req: IncomingMessage },
      cb: (ok: boolean, code?: number, message?: string) => void,
    ) => {
      const origin = normalOrigin(info.origin)
      if (!origin || !allowed.has(origin)) {
        log(`refused a page from origin ${JSON.stringify(info.origin ?? '')}`)
        return cb(false, 403, 'Origin not allowed')
      }
      if (!loopbackHost(info.req.headers.host, port)) {
        log(`refused a page with Host ${JSON.stringify(info.req.headers.host ?? '')} (DNS rebinding?)`)
        return cb(false, 403, 'Host not allowed')
      }
      if (pairing.unpaired.size >= MAX_PENDING) return cb(false, 429, 'Too many pending pairings')
      cb(true)
    },
  })
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve)
    wss.once('error', reject)
  })
  const port = (wss.address() as AddressInfo).port
  wss.on('error', (err) => log(`websocket server error: ${String(err)}`))
  wss.on('connection', (ws, req) => connection(ws, normalOrigin(req.headers.origin) as string))

  function connection(ws: WebSocket, origin: string): void {
    pairing.unpaired.add(ws)
    let tab: Tab | undefined
    let greeted = false
    const helloTimer = setTimeout(() => ws.close(4000, 'No hello'), HELLO_TIMEOUT_MS)
    ws.on('message', (data, isBinary) => {
      const read = readPairingMessage(isBinary ? undefined : data.toString(), 'toRelay')
      if (!read.ok) {
        // Dropped before anything acts on it; the reason names the rule, never the content.
        log(
          `dropped a malformed message from ${tab ? `tab ${tab.id}` : 'a page'} (${origin}): ${read.reason}`,
        )
        return ws.close(4002, `Malformed message: ${read.reason}`.slice(0, 120))
      }
      const msg = read.message
      if (!tab) {
        if (greeted) return // the hello is being handled
        if (msg.type !== 'hello') return ws.close(4002, 'Expected hello')
        clearTimeout(helloTimer)
        greeted = true
        void pairing.hello(ws, origin, msg.resume).then((t) => {
          tab = t
          if (t && ws.readyState === ws.CLOSED) tabs.closed(t, log)
        })
        return
      }
      if (!tab.paired) return // nothing but hello before the pairing
      if (msg.type === 'manifest') tabs.manifest(tab, msg)
      else if (msg.type === 'result') tabs.result(tab, msg)
      else if (msg.type === 'progress') tabs.progress(tab, msg)
      else if (msg.type === 'confirm') tabs.confirm(tab, msg)
      else if (msg.type === 'context' || msg.type === 'prompts') {
        const problem = options.offers?.(tab, msg)
        if (problem !== undefined) {
          log(`dropped a malformed message from tab ${tab.id} (${origin}): ${problem}`)
          ws.close(4002, `Malformed message: ${problem}`.slice(0, 120))
        }
      }
    })
    ws.on('close', () => {
      clearTimeout(helloTimer)
      pairing.unpaired.delete(ws)
      if (tab) tabs.closed(tab, log)
    })
    ws.on('error', (err) => log(`page socket error: ${String(err)}`))
  }

  return {
    port,
    close: async () => {
      for (const t of tabs.all) t.ws.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
    },
  }
}
