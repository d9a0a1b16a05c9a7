import type { ToolResult } from '@toolmark/core'
import type { ToolManifestSummary } from '@toolmark/protocol'
import {
  AGENT_SYSTEM_PROMPT,
  FOLLOW_UP_SYSTEM_PROMPT,
  modelResult,
  PAGE_DESCRIBE_TOOL,
  pageCallTool,
} from '@toolmark/protocol'
import type { BoundPage, Relay } from '../relay/relay.ts'
import { boundContent, boundManifest, boundText } from '../shared/bounds.ts'
import { escapeForLog } from '../shared/log.ts'
import { scrub, secretForms } from '../shared/redact.ts'
import type { Stops } from '../shared/stops.ts'
import type { Conversation, Store } from '../store/store.ts'
import { type CallOutcome, endPart, startPart } from './chat-view.ts'
import type { ConversationEvents } from './events.ts'
import type { History } from './history.ts'
import { forgetAgent, forgetSecrets, isObject, type RealText, type SecretLedger } from './ledger.ts'
import { toolLine } from './lines.ts'
import { pageContextText, withPageContext } from './page-context.ts'
import { heldWords, readReply, TextStream } from './stream.ts'
import type { AgentMessage, LlmTool, Provider, ToolCall } from './types.ts'

/** The system prompt of ordinary turns. */
export const SYSTEM_PROMPT = AGENT_SYSTEM_PROMPT

/** The system prompt of the one follow-up turn after a `confirmed`: acknowledge, no tools. */
export const FOLLOW_UP_PROMPT = FOLLOW_UP_SYSTEM_PROMPT

/** What a step works with: the agent's parts, shared by every turn. */
export interface StepParts {
  store: Store
  relay: Relay
  provider: Provider
  events: ConversationEvents
  ledger: SecretLedger
  history: History
  log: (line: string) => void
  /** Publish the reply as it streams (`text-delta` events). */
  streamReplies: boolean
  /** Aborted when the agent closes: the model request in flight stops. */
  stops: Stops
  /** True once the agent closes. */
  closed: () => boolean
}

/** One turn's state, carried from step to step. */
export interface TurnState {
  conversation: Conversation
  /** The user's message that started the turn, with its text as typed (none in a follow-up or a client turn). */
  real: RealText | undefined
  /** The one turn after a `confirmed`: no tools, the follow-up prompt. */
  followUp: boolean
  clientTools: readonly LlmTool[]
  clientNames: ReadonlySet<string>
  /** The agent history the model is handed; the turn's own entries keep their real values, in memory only. */
  history: AgentMessage[]
  /** The stored id of each entry of the history read at the start of the turn. */
  ids: string[]
  /** Values at the sensitive paths of this turn's calls: cut out of everything the turn stores. */
  secrets: Set<string>
  /** How many of `secrets` were already cut out of the stored history. */
  forgotten: number
}

/** The page a step works with: read once, at its start, and passed down to everything in the step. */
interface StepPage {
  page: BoundPage | undefined
  /** The page's tools that fit the manifest's share of what a provider is handed (see bounds.ts). */
  manifest: readonly ToolManifestSummary[]
}

/**
 * One model step of a turn: reads the bound page once (or takes `page`, read just before), hands the model the
 * history and the page's tools, stores its reply (masked), and runs the calls it made on the page. Resolves true
 * when the turn goes on with another step.
 */
export async function step(parts: StepParts, turn: TurnState, page?: BoundPage): Promise<boolean> {
  if (parts.closed()) return false
  const bound = page ?? (await parts.relay.page(turn.conversation.id))
  const seen: StepPage = { page: bound, manifest: boundManifest(bound?.tools ?? []) }
  const messageId = crypto.randomUUID()
  const reply = await askModel(parts, turn, seen, messageId)
  if (!reply) return false
  const text = boundText(reply.text)
  const calls = turn.followUp ? [] : reply.calls // no page tools in a follow-up turn: stray calls are dropped
  const assistant: AgentMessage = { role: 'assistant', text, toolCalls: calls }
  turn.history.push(assistant) // the turn itself keeps the real values, in memory only
  const kept = calls.map((call) => parts.ledger.maskCall(bound, call, turn.secrets))
  await parts.history.add(
    turn.conversation.id,
    'assistant',
    text,
    { ...assistant, toolCalls: kept },
    { visible: text.trim() !== '', id: messageId },
    turn.secrets,
  )
  await forgetNewSecrets(parts, turn)
  if (calls.length === 0) return false
  await runCalls(parts, turn, bound, calls, kept)
  // A call to a front end's tool ends the turn: it goes on when the front end sends the result.
  return !calls.some((call) => turn.clientNames.has(call.name))
}

/**
 * The model's reply to the step (streamed as masked deltas under `messageId`, the id its stored message gets),
 * or undefined when the model could not be reached (recorded in the chat) or the agent is closing.
 */
async function askModel(
  parts: StepParts,
  turn: TurnState,
  { page, manifest }: StepPage,
  messageId: string,
): Promise<{ text: string; calls: ToolCall[] } | undefined> {
  const { followUp, conversation } = turn
  // The page's readable context (the `context` extension), page data beside the history; none in a follow-up.
  const context = followUp ? undefined : await pageContextText(parts.store, page?.clientId, parts.log)
  const tools: LlmTool[] = followUp
    ? []
    : [pageCallTool(manifest), PAGE_DESCRIBE_TOOL as LlmTool, ...turn.clientTools]
  // The user's words that may be a value the model is about to pass at a sensitive path stop the stream
  // until the step's calls tell which values are secret.
  const held =
    followUp || !turn.real || !parts.ledger.sensitivePage(page, manifest) ? [] : heldWords(turn.real.text)
  const stream = parts.streamReplies
    ? new TextStream({
        publish: (delta) => parts.events.publish(conversation.id, { type: 'text-delta', messageId, delta }),
        secrets: () => [...turn.secrets],
        held,
      })
    : undefined
  const stop = parts.stops.take()
  try {
    return await readReply(
      parts.provider.stream({
        system: followUp ? FOLLOW_UP_PROMPT : SYSTEM_PROMPT,
        messages: withPageContext(turn.history, context),
        tools,
        signal: stop.signal,
        ...(followUp || !page ? {} : { manifest: [...manifest] }),
      }),
      stream,
    )
  } catch (error) {
    if (parts.closed()) return undefined // shutting down: the request was aborted on purpose
    // An API error may echo the request: the turn's known secrets are cut out too.
    const why = escapeForLog(scrub(String(error), [...turn.secrets]))
    parts.log(`[agent] provider ${parts.provider.name} failed: ${why}`)
    const text = `The agent could not reach its model (${parts.provider.name}).`
    await parts.history.add(conversation.id, 'assistant', text, undefined)
    return undefined
  } finally {
    stop.release()
  }
}

/**
 * When the step learned new secrets, cuts them out of the stored conversation; the rest of the turn still sees
 * its own real values, and what earlier turns left in the history is scrubbed.
 */
async function forgetNewSecrets(parts: StepParts, turn: TurnState): Promise<void> {
  if (turn.secrets.size <= turn.forgotten) return
  turn.forgotten = turn.secrets.size
  if (!parts.closed()) await forgetSecrets(parts.store, turn.conversation.id, turn.secrets, turn.real)
  const forms = secretForms(turn.secrets)
  for (let i = 0; i < turn.ids.length; i++) {
    if (turn.ids[i] !== turn.real?.id) turn.history[i] = forgetAgent(turn.history[i]!, forms)
  }
}

/** Runs the step's calls on the page in order (a front end's tools are left to it) and stores each result. */
async function runCalls(
  parts: StepParts,
  turn: TurnState,
  page: BoundPage | undefined,
  calls: readonly ToolCall[],
  kept: readonly ToolCall[],
): Promise<void> {
  const { conversation, secrets } = turn
  for (const [i, call] of calls.entries()) {
    if (turn.clientNames.has(call.name)) continue // the front end runs it: its result comes with a new request
    const running = startPart(parts.events, conversation.id, kept[i]!, page, secrets)
    const { content, line, tool, outcome } = await execute(parts, conversation, call, page, secrets)
    const message: AgentMessage = { role: 'tool', toolCallId: call.id, name: call.name, content }
    turn.history.push(message)
    const part =
      running && outcome ? endPart(parts.events, conversation.id, running, outcome, line, secrets) : undefined
    await parts.history.add(
      conversation.id,
      'tool',
      line,
      message,
      { tool, ...(part ? { part } : {}) },
      secrets,
    )
  }
}

/** What a call of the model led to: the tool result it is handed, the chat's tool line, the page's outcome. */
interface Executed {
  content: string
  line: string
  tool: string
  outcome?: CallOutcome
}

/** Runs one of the model's calls: `page_describe` or `page_call` on the bound page; anything else is an error. */
async function execute(
  parts: StepParts,
  conversation: Conversation,
  call: ToolCall,
  rendered: BoundPage | undefined,
  secrets: ReadonlySet<string>,
): Promise<Executed> {
  const input = call.input
  const kind = call.name === 'page_call' ? 'call' : call.name === 'page_describe' ? 'describe' : undefined
  if (!kind || !isObject(input) || typeof input.tool !== 'string') {
    const result: ToolResult = kind
      ? { status: 'invalid', issues: [{ path: 'tool', message: 'Expected the exact tool name' }] }
      : { status: 'error', message: `Unknown tool ${call.name}: use page_call or page_describe` }
    return { content: JSON.stringify(result), line: `${call.name} → ${result.status}`, tool: call.name }
  }
  const tool = input.tool
  const scope = { userId: conversation.userId, conversationId: conversation.id, toolCallId: call.id }
  if (kind === 'describe') {
    const outcome = await parts.relay.request(scope, { kind, tool })
    parts.ledger.learn(outcome.clientId, tool, outcome.result)
    return {
      content: boundContent(JSON.stringify(outcome.result)),
      line: boundText(toolLine('page_describe', tool, outcome)),
      tool,
    }
  }
  return callPage(parts, scope, tool, isObject(input.input) ? input.input : {}, rendered, secrets)
}

/** A `page_call` sent to the bound page, with the rev of the manifest the model saw when it is the same page load. */
async function callPage(
  parts: StepParts,
  scope: { userId: string; conversationId: string; toolCallId: string },
  tool: string,
  input: Record<string, unknown>,
  rendered: BoundPage | undefined,
  secrets: ReadonlySet<string>,
): Promise<Executed> {
  // The page may have reloaded since the step read it (the model took its time, or an earlier call of the step
  // navigated): the rev of the manifest the model saw goes only to that same page load.
  const bound = rendered && (await parts.relay.page(scope.conversationId))
  const rev = rendered && bound?.clientId === rendered.clientId ? rendered.rev : undefined
  const outcome = await parts.relay.request(scope, {
    kind: 'call',
    tool,
    input,
    ...(rev === undefined ? {} : { rev }),
    secrets: [...secrets],
  })
  const entry = outcome.clientId ? await parts.relay.toolEntry(outcome.clientId, tool) : undefined
  const untrusted =
    entry?.hints?.untrustedContent === true ||
    rendered?.tools.find((t) => t.name === tool)?.hints?.untrustedContent === true
  // A page's result may be 1 MiB: what is over the limit is never masked, stored or handed to the model.
  // A structured tool's `ok` data goes with a short note; untrusted results are wrapped (`modelResult`).
  const content = boundContent(JSON.stringify(modelResult(outcome.result, entry, untrusted)))
  return { content, line: boundText(toolLine('page_call', tool, outcome)), tool, outcome }
}
