import type { ToolResult } from '@toolmark/core'
import type { BoundPage } from '../relay/relay.ts'
import type { ChatMessage, ToolPart } from '../shared/contract.ts'
import { maskText, maskValue, secretForms } from '../shared/redact.ts'
import type { ConfirmBinding, StoredMessage } from '../store/store.ts'
import type { ConversationEvents } from './events.ts'
import { forgetPart, isObject } from './ledger.ts'
import { maskAssistantText } from './stream.ts'
import type { ToolCall } from './types.ts'

/** The longest input rendering a tool part carries (characters). */
const MAX_PART_INPUT = 160

/** What a page answered to a call: its result, and whether the call ran out of time. */
export interface CallOutcome {
  result: ToolResult
  timedOut: boolean
}

/** The chat view of a stored message. */
export function toChat(m: StoredMessage): ChatMessage {
  const chat: ChatMessage = { id: m.id, role: m.role, text: m.text, at: m.at }
  if (m.tool !== undefined) chat.tool = m.tool
  if (m.part !== undefined) chat.part = m.part
  return chat
}

/**
 * Publishes the `running` part of a page call the agent makes (`call` is the call as stored, masked at the
 * tool's sensitive paths; `page` the page whose manifest the model saw); undefined for anything but a
 * well-formed `page_call`.
 */
export function startPart(
  events: ConversationEvents,
  conversationId: string,
  call: ToolCall,
  page: BoundPage | undefined,
  secrets: ReadonlySet<string>,
): ToolPart | undefined {
  const input = call.input
  if (call.name !== 'page_call' || !isObject(input) || typeof input.tool !== 'string') return undefined
  const title = page?.tools.find((t) => t.name === input.tool)?.title
  const part: ToolPart = {
    callId: call.id,
    tool: input.tool,
    ...(typeof title === 'string' && title !== '' ? { title } : {}),
    input: renderInput(input.input, [...secrets]),
    state: 'running',
  }
  events.publish(conversationId, { type: 'tool', part: forgetPart(part, secretForms(secrets)) })
  return part
}

/** Publishes (and returns, for the tool line) the part of a call the page answered. */
export function endPart(
  events: ConversationEvents,
  conversationId: string,
  running: ToolPart,
  outcome: CallOutcome,
  line: string,
  secrets: ReadonlySet<string>,
): ToolPart {
  // The page's summary or message may repeat the call's secrets: they are cut out as from the tool line.
  const part = forgetPart(partOutcome(running, outcome, line), secretForms(secrets))
  events.publish(conversationId, { type: 'tool', part })
  return part
}

/**
 * The part of a call that waited for the user, moved to its outcome: the waiting part stored with the call's
 * tool line (its title and input, found in `stored`), or a new one from the binding when there is none.
 */
export function confirmedPart(
  stored: readonly StoredMessage[],
  binding: ConfirmBinding,
  outcome: CallOutcome,
  line: string,
): ToolPart {
  let waiting: ToolPart | undefined
  for (const m of stored) if (m.part?.callId === binding.toolCallId) waiting = m.part
  const base: ToolPart = waiting ?? {
    callId: binding.toolCallId,
    tool: binding.tool,
    input: '',
    state: 'running',
  }
  return partOutcome(base, outcome, line)
}

/** A short, masked rendering of a call's input: compact JSON, cut with an ellipsis when long. */
function renderInput(input: unknown, secrets: readonly string[]): string {
  const json = JSON.stringify(maskValue(input ?? {}, { secrets })) ?? '{}'
  const text = maskAssistantText(json, secrets)
  return text.length <= MAX_PART_INPUT ? text : `${text.slice(0, MAX_PART_INPUT - 1)}…`
}

/** The state of a tool part once the page answered the call. */
function partState(outcome: CallOutcome): ToolPart['state'] {
  const { result, timedOut } = outcome
  if (timedOut) return 'failed'
  if (result.status === 'ok') return 'done'
  if (result.status === 'needs_confirmation') return 'waiting'
  if (result.status === 'cancelled') return 'cancelled'
  return 'failed'
}

/** The part in the state the page's answer puts it in, with the outcome of the tool line as its summary. */
function partOutcome(part: ToolPart, outcome: CallOutcome, line: string): ToolPart {
  const { result } = outcome
  const { confirmId: _old, summary: _summary, ...rest } = part
  const at = line.lastIndexOf(' → ')
  const summary =
    result.status === 'needs_confirmation' ? result.summary : at >= 0 ? line.slice(at + 3) : line
  return {
    ...rest,
    state: partState(outcome),
    summary: maskText(summary),
    ...(result.status === 'needs_confirmation' ? { confirmId: result.confirmId } : {}),
  }
}
