import { router } from '@inertiajs/react'
import type { ToolPart } from '@toolmark/bridge/chat'
import { WIRE_NAMES } from '@toolmark/protocol'
import { useEffect, useMemo, useState } from 'react'
import { pageEcho } from './echo.ts'

export type { ToolPart }

/**
 * One line of the chat as Laravel shares it (`chat` prop, `Conversation::chatLines()`) and broadcasts it
 * (`.toolmark.chat`): an assistant line carries the `messageId` of its streamed text, a tool line the part
 * of the page call it reports on.
 */
export interface ChatLine {
  id: number
  role: 'user' | 'assistant' | 'tool'
  text: string
  messageId?: string
  part?: ToolPart
}

/** The agent's reply while it streams (`.toolmark.delta`): its masked text so far. */
export interface StreamingReply {
  messageId: string
  text: string
}

/** What the chat shows: the stored lines, the reply still streaming, and the latest part of each page call. */
export interface ChatView {
  lines: ChatLine[]
  streaming: StreamingReply | undefined
  parts: ToolPart[]
}

/** The events Laravel broadcasts on the conversation's private channel (toolmark/laravel's ToolmarkChat, ToolmarkDelta, ToolmarkTool). */
export const CHAT_EVENT = `.${WIRE_NAMES.chatEvent}`
export const DELTA_EVENT = `.${WIRE_NAMES.deltaEvent}`
export const TOOL_EVENT = `.${WIRE_NAMES.toolEvent}`

const ROLES = new Set(['user', 'assistant', 'tool'])
const STATES = new Set(['running', 'waiting', 'done', 'failed', 'cancelled'])

/** The lines of `a` and `b`, each id once (`b`'s copy wins), in id order. */
export function mergeLines(a: readonly ChatLine[], b: readonly ChatLine[]): ChatLine[] {
  const byId = new Map<number, ChatLine>()
  for (const line of [...a, ...b]) byId.set(line.id, line)
  return [...byId.values()].sort((x, y) => x.id - y.id)
}

/** A part as Laravel sends it, or undefined for anything else. */
function parsePart(value: unknown): ToolPart | undefined {
  const p = value as Record<string, unknown> | null | undefined
  if (!p || typeof p !== 'object') return undefined
  if (typeof p.callId !== 'string' || typeof p.tool !== 'string' || typeof p.input !== 'string')
    return undefined
  if (typeof p.state !== 'string' || !STATES.has(p.state)) return undefined
  return p as unknown as ToolPart
}

/** A broadcast line, or undefined for anything else; `text` is absent when it was too large to send. */
function parse(payload: unknown): (Omit<ChatLine, 'text'> & { text?: string }) | undefined {
  const m = (payload as { message?: unknown } | null)?.message as Record<string, unknown> | undefined
  if (!m || !Number.isInteger(m.id) || typeof m.role !== 'string' || !ROLES.has(m.role)) return undefined
  if (m.text !== undefined && typeof m.text !== 'string') return undefined
  if (m.messageId !== undefined && typeof m.messageId !== 'string') return undefined
  const { part: raw, ...rest } = m as {
    id: number
    role: ChatLine['role']
    text?: string
    messageId?: string
    part?: unknown
  }
  if (raw === undefined) return rest
  const part = parsePart(raw)
  return part ? { ...rest, part } : undefined
}

/** A streamed batch of the agent's reply, or undefined. */
function parseDelta(payload: unknown): { messageId: string; delta: string } | undefined {
  const d = payload as Record<string, unknown> | null
  return d && typeof d.messageId === 'string' && typeof d.delta === 'string'
    ? { messageId: d.messageId, delta: d.delta }
    : undefined
}

/** One partial reload of the chat prop at a time; a request while one runs makes one more afterwards. */
function chatReloader(): () => void {
  let running = false
  let again = false
  const run = (): void => {
    if (running) {
      again = true
      return
    }
    running = true
    router.reload({
      only: ['chat'],
      onFinish: () => {
        running = false
        if (again) {
          again = false
          run()
        }
      },
    })
  }
  return run
}

interface PusherSubscription {
  subscribed?: boolean
  bind(event: string, callback: () => void): void
  unbind(event: string, callback: () => void): void
}

/**
 * The chat of the conversation: the `chat` prop (sent with every full visit) plus the lines Laravel
 * broadcasts as they are stored, the agent's reply as it streams (`.toolmark.delta`, ended by the line
 * with the same messageId) and each page call's latest part (`.toolmark.tool`; a tool line carries its
 * part too, so the history replays them). The page never polls: it reloads the chat prop once each time
 * the channel is (re)subscribed, for the lines stored before it listened, and for a line sent without
 * its text.
 */
export function useChat(
  shared: readonly ChatLine[],
  userId: string | number | undefined,
  conversationId: string | number | null | undefined,
): ChatView {
  const [live, setLive] = useState<ChatLine[]>([])
  const [streams, setStreams] = useState<ReadonlyMap<string, string>>(new Map())
  const [parts, setParts] = useState<ReadonlyMap<string, ToolPart>>(new Map())
  useEffect(() => {
    setLive([])
    setStreams(new Map())
    setParts(new Map())
    const echo = pageEcho()
    if (!echo || userId === undefined || conversationId === null || conversationId === undefined) return
    // The bridge's transport owns this channel's subscription: listen and stop listening, never leave it.
    const channel = echo.private(`toolmark.${userId}.${conversationId}`)
    const reload = chatReloader()
    const onLine = (payload: unknown): void => {
      const line = parse(payload)
      if (!line) return
      const { messageId, part } = line
      if (messageId !== undefined)
        // The stored line ends its streamed text and wins over it.
        setStreams((s) => {
          if (!s.has(messageId)) return s
          const next = new Map(s)
          next.delete(messageId)
          return next
        })
      if (part) setParts((p) => new Map(p).set(part.callId, part))
      if (line.text === undefined) reload()
      else setLive((lines) => mergeLines(lines, [line as ChatLine]))
    }
    const onDelta = (payload: unknown): void => {
      const delta = parseDelta(payload)
      if (delta)
        setStreams((s) => new Map(s).set(delta.messageId, (s.get(delta.messageId) ?? '') + delta.delta))
    }
    const onTool = (payload: unknown): void => {
      const part = parsePart((payload as { part?: unknown } | null)?.part)
      if (part) setParts((p) => new Map(p).set(part.callId, part))
    }
    channel.listen(CHAT_EVENT, onLine)
    channel.listen(DELTA_EVENT, onDelta)
    channel.listen(TOOL_EVENT, onTool)
    const subscription = (channel as unknown as { subscription?: PusherSubscription }).subscription
    subscription?.bind('pusher:subscription_succeeded', reload)
    if (subscription?.subscribed) reload()
    return () => {
      channel.stopListening(CHAT_EVENT, onLine)
      channel.stopListening(DELTA_EVENT, onDelta)
      channel.stopListening(TOOL_EVENT, onTool)
      subscription?.unbind('pusher:subscription_succeeded', reload)
    }
  }, [userId, conversationId])
  return useMemo(() => {
    const lines = mergeLines(live, shared)
    // A reply whose line is stored (live or reloaded) is shown by its line.
    const stored = new Set(lines.flatMap((l) => (l.messageId ? [l.messageId] : [])))
    let streaming: StreamingReply | undefined
    for (const [messageId, text] of streams)
      if (!stored.has(messageId) && text.trim() !== '') streaming = { messageId, text }
    // The calls' latest parts: from the stored lines in order, then the live events (the latest wins).
    const latest = new Map<string, ToolPart>()
    for (const line of lines) if (line.part) latest.set(line.part.callId, line.part)
    for (const [callId, part] of parts) latest.set(callId, part)
    return { lines, streaming, parts: [...latest.values()] }
  }, [live, shared, streams, parts])
}
