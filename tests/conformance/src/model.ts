import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/*
 * The scripted model every target talks to: an OpenAI-compatible `POST …/chat/completions` (streamed) on
 * loopback. Both servers reach it the way they reach a real model (`OpenAiProvider` with `baseUrl`,
 * toolmark/laravel's `OpenAiChatModel` through `TOOLMARK_LLM_URL`), so the runner sees exactly what each
 * agent loop hands a model: the system prompt, the tools and every tool result. Each request is held until
 * the scenario answers it. A conversation is recognised by the tag its user's first message starts with.
 */

/** One chat message as Chat Completions carries it. */
export interface WireMessage {
  role: string
  content?: string | null
  tool_call_id?: string
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>
}

/** One tool definition as Chat Completions carries it. */
export interface WireTool {
  type: 'function'
  function: { name: string; description: string; parameters: unknown }
}

/** What the model answers: text, or one tool call. */
export type ModelReply = { text: string } | { toolCall: { id: string; name: string; input: unknown } }

/** One request the model holds until the scenario answers it. */
export interface ModelRequest {
  messages: WireMessage[]
  tools: WireTool[]
  reply(answer: ModelReply): void
}

/** The prefix of a tagged user message: `cf-<10 letters>: `. */
export const tagPrefix = (tag: string): string => `cf-${tag}: `

const TAG = /^cf-([a-z]{10}): /

interface Lane {
  held: ModelRequest[]
  waiting: Array<(request: ModelRequest) => void>
  finished: boolean
}

/** The scripted model server. */
export class ScriptedModel {
  readonly #lanes = new Map<string, Lane>()
  #server: Server | undefined
  /** `http://127.0.0.1:<port>/v1` once started. */
  url = ''

  /** Starts listening on a free loopback port. */
  async start(): Promise<void> {
    const server = createServer((req, res) => void this.#handle(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    this.#server = server
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  }

  #lane(tag: string): Lane {
    let lane = this.#lanes.get(tag)
    if (!lane) {
      lane = { held: [], waiting: [], finished: false }
      this.#lanes.set(tag, lane)
    }
    return lane
  }

  /** The conversation's next request (held ones first); rejects after `timeoutMs`. */
  next(tag: string, timeoutMs: number): Promise<ModelRequest> {
    const lane = this.#lane(tag)
    const held = lane.held.shift()
    if (held) return Promise.resolve(held)
    return new Promise((resolve, reject) => {
      const waiter = (request: ModelRequest) => {
        clearTimeout(timer)
        resolve(request)
      }
      const timer = setTimeout(() => {
        lane.waiting.splice(lane.waiting.indexOf(waiter), 1)
        reject(new Error(`the model got no request within ${timeoutMs} ms`))
      }, timeoutMs)
      lane.waiting.push(waiter)
    })
  }

  /** Puts a request back at the head of its conversation's queue (a step looked at it without answering). */
  hold(tag: string, request: ModelRequest): void {
    this.#lane(tag).held.unshift(request)
  }

  /** The scenario is over: held and later requests of the conversation get a plain text answer. */
  finish(tag: string): void {
    const lane = this.#lane(tag)
    lane.finished = true
    for (const request of lane.held.splice(0)) request.reply({ text: 'Done.' })
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end()
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      messages: WireMessage[]
      tools?: WireTool[]
    }
    let answered = false
    const request: ModelRequest = {
      messages: body.messages,
      tools: body.tools ?? [],
      reply: (answer) => {
        if (answered) return
        answered = true
        stream(res, answer)
      },
    }
    const first = body.messages.find((m) => m.role === 'user')
    const tag = typeof first?.content === 'string' ? TAG.exec(first.content)?.[1] : undefined
    const lane = tag === undefined ? undefined : this.#lane(tag)
    if (!lane || lane.finished) return request.reply({ text: 'Done.' })
    const waiter = lane.waiting.shift()
    if (waiter) waiter(request)
    else lane.held.push(request)
  }

  /** Answers what is still held and stops listening. */
  async close(): Promise<void> {
    for (const tag of this.#lanes.keys()) this.finish(tag)
    await new Promise<void>((resolve) => {
      this.#server?.closeAllConnections()
      this.#server?.close(() => resolve())
    })
  }
}

/** Writes one streamed Chat Completions answer. */
function stream(res: ServerResponse, answer: ModelReply): void {
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-conformance',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'scripted',
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  if ('text' in answer) {
    res.write(chunk({ role: 'assistant', content: answer.text }, null))
    res.write(chunk({}, 'stop'))
  } else {
    const { id, name, input } = answer.toolCall
    res.write(
      chunk(
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(input) } },
          ],
        },
        null,
      ),
    )
    res.write(chunk({}, 'tool_calls'))
  }
  res.end('data: [DONE]\n\n')
}

/**
 * The content the model got as the result of tool call `id`: the last `tool` message answering it, or the
 * last user-role note that marks itself as its result or confirmation outcome (a server may hand a result
 * that does not follow its call as marked user text). Undefined when the request has none.
 */
export function resultFor(messages: readonly WireMessage[], id: string): string | undefined {
  let found: string | undefined
  const note = new RegExp(
    `^\\[(?:Result of tool call ${escapeRegExp(id)} |Outcome of the confirmation \\S+ for tool call ${escapeRegExp(id)} )[^\\]\\n]*\\]\\n`,
  )
  for (const m of messages) {
    if (typeof m.content !== 'string') continue
    if (m.role === 'tool' && m.tool_call_id === id) found = m.content
    else if (m.role === 'user') {
      const match = note.exec(m.content)
      if (match) found = m.content.slice(match[0].length)
    }
  }
  return found
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
