// Measurement: `Relay.request` → page → result, the relay path the agent loop uses for every
// `page_call`, sequential and 16 in flight. Floor: a raw `ws` round trip between this process and the
// same Chromium page, whose tiny script echoes each frame (the call's JSON text).
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { RunningServer } from '@toolmark-apps/agent-server'
import { type WebSocket, WebSocketServer } from 'ws'
import type { Demo } from './page.ts'
import {
  alternate,
  HOST,
  median,
  ms,
  percentile,
  pipelined,
  QUERY,
  ROUNDS,
  rate,
  row,
  sequential,
  step,
  TOOL,
  times,
  withCpu,
} from './shared.ts'

const WARM_CALLS = 300
export const SEQ_CALLS = 2000
const PIPE_CALLS = 4000
const IN_FLIGHT = 16

type Run = { sorted: number[]; perSec: number }

/** Sequential latencies and rates, pipelined rates and CPU, for the floor and for `Relay.request`. */
export interface RequestFigures {
  floorSeq: Run
  relaySeq: Run
  floorPipe: number
  relayPipe: number
  floorCpu: number
  relayCpu: number
  /** Relay calls that did not return ok. */
  failures: number
  /** Sizes of the call frame and of our result message, in bytes of JSON. */
  frameBytes: number
  resultBytes: number
}

export async function measureRequest(server: RunningServer, demo: Demo): Promise<RequestFigures> {
  const { conversation, bound } = demo
  const echo = new WebSocketServer({ host: HOST, port: 0 })
  const echoListening = new Promise((resolve) => echo.once('listening', resolve))
  try {
    const scope = { userId: conversation.userId, conversationId: conversation.id, toolCallId: 'bench' }
    let failures = 0
    let resultBytes = 0
    const relayCall = async () => {
      const rev = (await server.relay.page(conversation.id))?.rev
      const outcome = await server.relay.request(scope, {
        kind: 'call',
        tool: TOOL,
        input: { query: QUERY },
        ...(rev === undefined ? {} : { rev }),
      })
      if (outcome.result.status !== 'ok') failures++
      resultBytes = JSON.stringify({
        protocol: 1,
        type: 'result',
        clientId: bound.clientId,
        id: outcome.callId,
        result: outcome.result,
      }).length
    }
    // Floor: the same page echoes frames on a second, raw WebSocket to this process.
    await echoListening
    const connected = new Promise<WebSocket>((resolve) => echo.once('connection', resolve))
    await demo.page.evaluate(
      (url) =>
        new Promise<void>((resolve, reject) => {
          const socket = new globalThis.WebSocket(url)
          socket.onmessage = (event) => socket.send(event.data)
          socket.onopen = () => resolve()
          socket.onerror = () => reject(new Error('echo socket failed'))
          ;(globalThis as { benchEcho?: unknown }).benchEcho = socket
        }),
      `ws://${HOST}:${(echo.address() as AddressInfo).port}`,
    )
    const echoSocket = await connected
    const frame = JSON.stringify({
      protocol: 1,
      type: 'call',
      clientId: bound.clientId,
      id: randomUUID(),
      rev: bound.rev,
      tool: TOOL,
      input: { query: QUERY },
    })
    const replies: Array<() => void> = []
    echoSocket.on('message', () => replies.shift()?.())
    const echoCall = () =>
      new Promise<void>((resolve) => {
        replies.push(resolve)
        echoSocket.send(frame)
      })

    step('warm-up')
    for (let i = 0; i < WARM_CALLS; i++) {
      await echoCall()
      await relayCall()
    }
    failures = 0
    step('Relay.request: sequential, then 16 in flight')
    const [floorSeqs, relaySeqs] = await alternate(
      () => sequential(SEQ_CALLS / ROUNDS, echoCall),
      () => sequential(SEQ_CALLS / ROUNDS, relayCall),
    )
    const [floorPipes, relayPipes] = await alternate(
      () => withCpu(() => pipelined(PIPE_CALLS / ROUNDS, IN_FLIGHT, echoCall)),
      () => withCpu(() => pipelined(PIPE_CALLS / ROUNDS, IN_FLIGHT, relayCall)),
    )
    const merge = (runs: Run[]) => ({
      sorted: runs.flatMap((r) => r.sorted).sort((a, b) => a - b),
      perSec: median(runs.map((r) => r.perSec)),
    })
    const figures: RequestFigures = {
      floorSeq: merge(floorSeqs),
      relaySeq: merge(relaySeqs),
      floorPipe: median(floorPipes.map(([perSec]) => perSec)),
      relayPipe: median(relayPipes.map(([perSec]) => perSec)),
      floorCpu: floorPipes.reduce((sum, [, cpu]) => sum + cpu, 0),
      relayCpu: relayPipes.reduce((sum, [, cpu]) => sum + cpu, 0),
      failures,
      frameBytes: frame.length,
      resultBytes,
    }
    echoSocket.close()
    return figures
  } finally {
    for (const socket of echo.clients) socket.terminate()
    echo.close()
  }
}

/** The table rows of {@link measureRequest}'s figures. */
export function requestRows(f: RequestFigures): void {
  const fp50 = percentile(f.floorSeq.sorted, 0.5)
  const fp99 = percentile(f.floorSeq.sorted, 0.99)
  const rp50 = percentile(f.relaySeq.sorted, 0.5)
  const rp99 = percentile(f.relaySeq.sorted, 0.99)
  row(`Relay.request → page → result, p50 (${SEQ_CALLS} sequential)`, ms(rp50), ms(fp50), times(rp50, fp50))
  row('Relay.request → page → result, p99', ms(rp99), ms(fp99), times(rp99, fp99))
  row('relay overhead p50 (ours − floor)', ms(rp50 - fp50), '', '', '≤ 2 ms on loopback')
  row(
    'Relay.request, sequential',
    rate(f.relaySeq.perSec),
    rate(f.floorSeq.perSec),
    times(f.relaySeq.perSec, f.floorSeq.perSec),
  )
  row(
    `Relay.request, ${IN_FLIGHT} in flight (${PIPE_CALLS} calls)`,
    rate(f.relayPipe),
    rate(f.floorPipe),
    times(f.relayPipe, f.floorPipe),
  )
  row(
    `  CPU per call, ${IN_FLIGHT} in flight`,
    ms(f.relayCpu / PIPE_CALLS),
    ms(f.floorCpu / PIPE_CALLS),
    times(f.relayCpu, f.floorCpu),
  )
}
