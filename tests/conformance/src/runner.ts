import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { PAGE_DESCRIBE_TOOL, pageCallTool, type ToolManifestSummary } from '@toolmark/protocol'
import type {
  ChatProgressStep,
  Json,
  ModelStep,
  Scenario,
  ScenarioStep,
  ScenarioTool,
} from '../../../packages/protocol/src/__scenarios__/scenario.ts'
import type { ChatWatch, PageLink, Target, User } from './driver.ts'
import { type ModelRequest, resultFor, type ScriptedModel, tagPrefix } from './model.ts'

/*
 * Plays one scenario against one target. Each step either acts (a page sends, the user types, the model
 * answers) or waits for what must happen (a page receives, the server rejects, the model is handed a
 * result) and throws a ScenarioFailure naming the step when it does not.
 */

/** Where the message fixtures live. */
export const FIXTURES = new URL('../../../packages/protocol/src/__fixtures__/', import.meta.url)

/** The page's own outcomes of a rejected and an expired confirmation. */
const REJECTED_OUTCOME = { status: 'cancelled', by: 'operator' }
const EXPIRED_OUTCOME = {
  status: 'refused',
  code: 'confirmation_expired',
  message: 'The confirmation expired or was already used',
}

/** How long a `chatProgress` step waits for events beyond those it expects. */
const PROGRESS_SETTLE_MS = 400

/** How long after a page load's manifest the scenario goes on. */
const PAGE_LOAD_MS = 150

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** A step's expectation did not hold. */
export class ScenarioFailure extends Error {}

interface PlayUser {
  user: User
  tag: string
  seenRejections: number
  held: ModelRequest | undefined
  /** The chat's live events, followed in a scenario with `chatProgress` steps. */
  chat: ChatWatch | undefined
  seenProgress: number
}

interface Page {
  clientId: string
  link: PageLink
  owner: string
  inbox: Array<{ message: Record<string, unknown>; used: boolean }>
  arrived: () => void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const letters = (n: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => String.fromCharCode(97 + (b % 26))).join('')

/** Plays `scenario` on `target`; resolves when every step held, throws the first failure. */
export async function play(scenario: Scenario, target: Target, model: ScriptedModel): Promise<void> {
  const users = new Map<string, PlayUser>()
  const pages = new Map<string, Page>()
  const vars = new Map<string, string>()
  let lastSender = 'u1'
  const watchesChat = scenario.steps.some((step) => 'chatProgress' in step)
  let lastBurst = { count: 0, ms: 0 }

  const userOf = async (name: string): Promise<PlayUser> => {
    let u = users.get(name)
    if (!u) {
      const user = await target.user()
      u = { user, tag: letters(10), seenRejections: 0, held: undefined, chat: undefined, seenProgress: 0 }
      users.set(name, u)
      if (watchesChat) u.chat = await user.watchChat()
    }
    return u
  }
  const pageOf = (name: string): Page => {
    const page = pages.get(name)
    if (!page) throw new ScenarioFailure(`page ${name} was never opened`)
    return page
  }
  const sub = (value: Json | undefined): Json | undefined => {
    if (typeof value === 'string' && value.startsWith('$')) {
      const key = value.slice(1)
      if (key.startsWith('new:')) {
        const fresh = randomUUID()
        vars.set(key.slice(4), fresh)
        return fresh
      }
      const page = pages.get(key)
      if (page) return page.clientId
      const bound = vars.get(key)
      if (bound === undefined) throw new ScenarioFailure(`${value} is not bound`)
      return bound
    }
    if (Array.isArray(value)) return value.map((v) => sub(v) as Json)
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sub(v) as Json]))
    return value
  }
  const send = async (from: string, message: unknown) => {
    const page = pageOf(from)
    lastSender = page.owner
    await page.link.send(typeof message === 'string' ? message : JSON.stringify(message))
  }
  const heldRequest = async (u: PlayUser): Promise<ModelRequest> => {
    if (u.held) return u.held
    u.held = await model.next(u.tag, target.deadlineMs + 10_000).catch((error: Error) => {
      throw new ScenarioFailure(error.message)
    })
    return u.held
  }

  const run = async (step: ScenarioStep): Promise<void> => {
    if ('open' in step) {
      const owner = step.user ?? 'u1'
      const u = await userOf(owner)
      const clientId = randomUUID()
      const link = await u.user.openPage(clientId)
      const page: Page = { clientId, link, owner, inbox: [], arrived: () => {} }
      link.onMessage((message) => {
        if (!message || typeof message !== 'object') return
        const m = message as Record<string, unknown>
        if (m.clientId !== clientId) return // rule 1: a page ignores other page loads' messages
        page.inbox.push({ message: m, used: false })
        page.arrived()
      })
      pages.set(step.open, page)
      if (step.manifest) {
        await send(step.open, { protocol: 1, type: 'manifest', clientId, ...step.manifest })
        // A user acts a moment after the page loaded. A server may settle a new page load just after it
        // handled the manifest (shared mode claims it in Redis then); a call in that moment is a race the
        // scenarios do not test.
        await sleep(PAGE_LOAD_MS)
      }
    } else if ('send' in step) {
      const message = { protocol: 1, clientId: pageOf(step.from).clientId, ...(sub(step.send) as object) }
      if (step.padTo !== undefined) padTo(message, step.padTo)
      if (step.nestTo !== undefined) nestTo(message, step.nestTo)
      if (step.times === undefined) await send(step.from, message)
      else {
        const begin = Date.now()
        await Promise.all(Array.from({ length: step.times }, () => send(step.from, message)))
        lastBurst = { count: step.times, ms: Date.now() - begin }
      }
    } else if ('sendFixture' in step) {
      const fixture = JSON.parse(readFileSync(new URL(step.sendFixture, FIXTURES), 'utf8')) as unknown
      if (fixture && typeof fixture === 'object' && !Array.isArray(fixture)) {
        const f = fixture as Record<string, unknown>
        for (const key of ['clientId', 'id', 'confirmId'] as const) {
          const value = step.replace[key]
          // An empty one is the fixture's point (an empty id is invalid): it stays.
          if (value !== undefined && typeof f[key] === 'string' && f[key] !== '') f[key] = sub(value)
        }
      }
      await send(step.from, fixture)
    } else if ('confirm' in step) {
      const result =
        step.action === 'reject' ? REJECTED_OUTCOME : step.action === 'expire' ? EXPIRED_OUTCOME : step.result
      if (result === undefined) throw new ScenarioFailure(`confirm ${step.action} needs a result`)
      const page = pageOf(step.from)
      await send(step.from, {
        protocol: 1,
        type: 'confirmed',
        clientId: page.clientId,
        confirmId: sub(step.confirm),
        result: sub(result as Json),
      })
    } else if ('receive' in step) {
      const page = pageOf(step.at)
      const within = step.within === 'deadline' ? target.deadlineMs + 4500 : (step.within ?? 5000)
      const expected = sub(step.receive) as Record<string, Json>
      const until = Date.now() + within
      for (;;) {
        const next = page.inbox.find((e) => !e.used && e.message.type === expected.type)
        if (next) {
          next.used = true
          for (const [key, value] of Object.entries(expected))
            if (!same(next.message[key], value))
              throw new ScenarioFailure(
                `page ${step.at} received ${show(next.message)}, expected ${key} ${show(value)}`,
              )
          if (step.exact) {
            const extra = Object.keys(next.message).filter(
              (key) => !(key in expected) && key !== 'protocol' && key !== 'clientId',
            )
            if (extra.length > 0 || next.message.protocol !== 1 || next.message.clientId !== page.clientId)
              throw new ScenarioFailure(
                `page ${step.at} received ${show(next.message)}, expected exactly ${show(expected)}`,
              )
          }
          const id = String(next.message.id)
          if (step.idShape === 'uuid-v4' && !UUID_V4.test(id))
            throw new ScenarioFailure(`id ${show(id)} is not a UUID v4`)
          for (const other of step.distinctFrom ?? [])
            if (vars.get(other) === id) throw new ScenarioFailure(`id ${id} repeats $${other}`)
          if (step.bind) vars.set(step.bind, id)
          return
        }
        const left = until - Date.now()
        if (left <= 0)
          throw new ScenarioFailure(`page ${step.at} received no ${expected.type} within ${within} ms`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left)
          page.arrived = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
    } else if ('nothing' in step) {
      const page = pageOf(step.at)
      await sleep(step.for ?? 500)
      const extra = page.inbox.find((e) => !e.used && e.message.type === step.nothing)
      if (extra) throw new ScenarioFailure(`page ${step.at} received ${show(extra.message)}`)
    } else if ('kept' in step) {
      const closed = pageOf(step.kept).link.closedByServer()
      if (closed > 0)
        throw new ScenarioFailure(`the server closed page ${step.kept}'s connection ${closed} time(s)`)
    } else if ('leave' in step) {
      await pageOf(step.leave).link.leave()
    } else if ('say' in step) {
      const u = await userOf(step.user ?? 'u1')
      await u.user.say(tagPrefix(u.tag) + step.say)
    } else if ('model' in step) {
      await modelStep(step.model, await userOf(step.model.user ?? 'u1'))
    } else if ('rejected' in step) {
      const u = await userOf(step.user ?? lastSender)
      const until = Date.now() + 1000
      for (;;) {
        const reasons = await u.user.rejections()
        if (reasons.length > u.seenRejections) {
          const reason = reasons[u.seenRejections++]
          if (reason !== step.rejected)
            throw new ScenarioFailure(`rejected ${show(reason)}, expected ${show(step.rejected)}`)
          return
        }
        if (Date.now() > until)
          throw new ScenarioFailure(`nothing was rejected (expected ${show(step.rejected)})`)
        await sleep(25)
      }
    } else if ('wait' in step) {
      if (step.wait === 'deadline') await sleep(target.deadlineMs + 300)
      else if (step.wait === 'confirmationLifetime')
        for (const u of users.values()) await u.user.outliveConfirmations()
      else await sleep(step.wait)
    } else if ('stored' in step) {
      const u = await userOf(step.user ?? 'u1')
      const text = await u.user.stored()
      for (const secret of step.stored.absent) {
        const at = new RegExp(`(?<![0-9A-Za-z-])${escapeRegExp(secret)}(?![0-9A-Za-z-])`).exec(text)
        if (at)
          throw new ScenarioFailure(
            `stored data contains ${show(secret)}: …${text.slice(Math.max(0, at.index - 80), at.index + 80)}…`,
          )
      }
    } else if ('chatProgress' in step) {
      await chatProgress(step.chatProgress, await userOf(step.user ?? 'u1'))
    } else if ('chat' in step) {
      const u = await userOf(step.user ?? 'u1')
      const want = step.chat.role === 'user' ? tagPrefix(u.tag) + step.chat.text : step.chat.text
      const until = Date.now() + 5000
      for (;;) {
        const lines = await u.user.chat()
        if (lines.some((l) => l.role === step.chat.role && l.text === want)) return
        if (Date.now() > until)
          throw new ScenarioFailure(
            `no chat line ${show({ ...step.chat, text: want })} in ${show(lines.filter((l) => l.role === step.chat.role))}`,
          )
        await sleep(50)
      }
    }
  }

  const chatProgress = async (want: ChatProgressStep['chatProgress'], u: PlayUser): Promise<void> => {
    const chat = u.chat
    if (!chat) throw new ScenarioFailure('the chat is not followed')
    const fresh = () => chat.progress().slice(u.seenProgress)
    // Wait for as many as expected, then a moment more: one too many must show too.
    const least = Array.isArray(want) ? want.length : Math.min(want.limit, lastBurst.count)
    const until = Date.now() + 5000
    while (fresh().length < least && Date.now() < until) await sleep(25)
    await sleep(PROGRESS_SETTLE_MS)
    const got = fresh()
    u.seenProgress += got.length
    if (Array.isArray(want)) {
      if (!same(got, sub(want as unknown as Json)))
        throw new ScenarioFailure(`the chat got progress ${show(got)}, expected ${show(want)}`)
      return
    }
    // A second may begin during the burst: a burst of d seconds touches at most floor(d) + 2 of them.
    const most = want.limit * (Math.floor(lastBurst.ms / 1000) + 2)
    if (got.length < least || got.length > most)
      throw new ScenarioFailure(
        `the chat got ${got.length} progress events of a burst of ${lastBurst.count} in ${lastBurst.ms} ms, expected ${least} to ${most}`,
      )
  }

  const modelStep = async (step: ModelStep['model'], u: PlayUser): Promise<void> => {
    const request = await heldRequest(u)
    if (step.system !== undefined) {
      const system = request.messages.find((m) => m.role === 'system')?.content ?? ''
      if (!system.includes(step.system))
        throw new ScenarioFailure(`the system prompt ${show(system)} lacks ${show(step.system)}`)
    }
    if (step.tools !== undefined) {
      if (step.tools === 'none') {
        if (request.tools.length > 0)
          throw new ScenarioFailure(`the model was offered ${request.tools.map((t) => t.function.name)}`)
      } else {
        const call = pageCallTool(step.tools as unknown as ToolManifestSummary[])
        const offered = request.tools.map((t) => ({
          name: t.function.name,
          description: t.function.description,
          input_schema: t.function.parameters,
        }))
        // Byte for byte, key order included: the definitions must not change while the page does not
        // (provider prompt caching).
        const want = JSON.stringify([call, PAGE_DESCRIBE_TOOL])
        if (JSON.stringify(offered) !== want)
          throw new ScenarioFailure(`the model was offered ${show(offered)}, expected ${want}`)
      }
    }
    for (const [id, expected] of Object.entries(step.sees ?? {})) {
      const want = sub(expected) as Json
      const content = resultFor(request.messages, id)
      if (content === undefined) throw new ScenarioFailure(`the model got no result for ${id}`)
      if (step.exact) {
        if (content !== JSON.stringify(want))
          throw new ScenarioFailure(`the model got ${content} for ${id}, expected ${JSON.stringify(want)}`)
      } else {
        let parsed: unknown
        try {
          parsed = JSON.parse(content)
        } catch {
          throw new ScenarioFailure(`the model got ${show(content)} for ${id}, not JSON`)
        }
        if (!same(parsed, want))
          throw new ScenarioFailure(`the model got ${show(parsed)} for ${id}, expected ${show(want)}`)
      }
    }
    const reply = step.reply
    if (!reply) return
    u.held = undefined
    if ('text' in reply) request.reply({ text: reply.text })
    else if ('call' in reply)
      request.reply({
        toolCall: { id: reply.id, name: 'page_call', input: { tool: reply.call, input: sub(reply.input) } },
      })
    else request.reply({ toolCall: { id: reply.id, name: 'page_describe', input: { tool: reply.describe } } })
  }

  try {
    for (const [index, step] of scenario.steps.entries()) {
      try {
        await run(step)
      } catch (error) {
        const why = error instanceof ScenarioFailure ? error.message : String(error)
        // What the server rejected that no step expected yet often tells why.
        const unexpected: string[] = []
        for (const [name, u] of users)
          for (const reason of (await u.user.rejections().catch(() => [])).slice(u.seenRejections))
            unexpected.push(`${name} ${reason}`)
        const also = unexpected.length > 0 ? ` (also rejected: ${unexpected.join(', ')})` : ''
        throw new ScenarioFailure(`step ${index + 1} ${Object.keys(step)[0]}: ${why}${also}`)
      }
    }
    // Nothing may be rejected that the scenario did not expect.
    await sleep(200)
    for (const [name, u] of users) {
      const reasons = await u.user.rejections()
      if (reasons.length > u.seenRejections)
        throw new ScenarioFailure(`${name}: unexpected rejections ${show(reasons.slice(u.seenRejections))}`)
    }
  } finally {
    for (const u of users.values()) model.finish(u.tag)
    await Promise.all([...pages.values()].map((p) => p.link.leave().catch(() => {})))
    await Promise.all([...users.values()].map((u) => u.chat?.close().catch(() => {})))
  }
}

/** Grows `result.data` (a string) so the message is exactly `bytes` UTF-8 bytes of JSON. */
function padTo(message: Record<string, unknown>, bytes: number): void {
  const result = message.result as { data?: unknown }
  result.data = ''
  const base = Buffer.byteLength(JSON.stringify(message))
  if (base > bytes) throw new ScenarioFailure(`the message is already ${base} bytes`)
  result.data = 'x'.repeat(bytes - base)
}

/** Makes `result.data` nested arrays so the message is exactly `depth` deep (message 1, result 2, …). */
function nestTo(message: Record<string, unknown>, depth: number): void {
  let data: unknown = []
  for (let d = 3; d < depth; d++) data = [data]
  ;(message.result as { data?: unknown }).data = data
}

/** Deep equality of JSON values (key order ignored). */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((v, i) => same(v, b[i]))
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined)
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined)
    if (ka.length !== kb.length) return false
    return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  }
  return false
}

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 400 ? `${text.slice(0, 400)}…` : text
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The tools a scenario writes, typed for the protocol helpers. */
export type { ScenarioTool }
