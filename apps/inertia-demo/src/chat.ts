import { router } from '@inertiajs/react'
import { useEffect, useMemo, useState } from 'react'
import { pageEcho } from './echo.ts'

/** One line of the chat as Laravel shares it (`chat` prop) and broadcasts it (`.toolmark.chat`). */
export interface ChatLine {
  id: number
  role: 'user' | 'assistant' | 'tool'
  text: string
}

/** The chat event Laravel broadcasts on the conversation's private channel (App\Events\ToolmarkChat). */
export const CHAT_EVENT = '.toolmark.chat'

const ROLES = new Set(['user', 'assistant', 'tool'])

/** The lines of `a` and `b`, each id once (`b`'s copy wins), in id order. */
export function mergeLines(a: readonly ChatLine[], b: readonly ChatLine[]): ChatLine[] {
  const byId = new Map<number, ChatLine>()
  for (const line of [...a, ...b]) byId.set(line.id, line)
  return [...byId.values()].sort((x, y) => x.id - y.id)
}

/** A broadcast line, or undefined for anything else; `text` is absent when it was too large to send. */
function parse(payload: unknown): { id: number; role: ChatLine['role']; text?: string } | undefined {
  const m = (payload as { message?: unknown } | null)?.message as Record<string, unknown> | undefined
  if (!m || !Number.isInteger(m.id) || typeof m.role !== 'string' || !ROLES.has(m.role)) return undefined
  if (m.text !== undefined && typeof m.text !== 'string') return undefined
  return m as { id: number; role: ChatLine['role']; text?: string }
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
 * broadcasts as they are stored. The page never polls: it reloads the chat prop once each time the
 * channel is (re)subscribed, for the lines stored before it listened, and for a line sent without its
 * text.
 */
export function useChat(
  shared: readonly ChatLine[],
  userId: string | number | undefined,
  conversationId: string | number | null | undefined,
): ChatLine[] {
  const [live, setLive] = useState<ChatLine[]>([])
  useEffect(() => {
    setLive([])
    const echo = pageEcho()
    if (!echo || userId === undefined || conversationId === null || conversationId === undefined) return
    // The bridge's transport owns this channel's subscription: listen and stop listening, never leave it.
    const channel = echo.private(`toolmark.${userId}.${conversationId}`)
    const reload = chatReloader()
    const onLine = (payload: unknown): void => {
      const line = parse(payload)
      if (!line) return
      if (line.text === undefined) reload()
      else setLive((lines) => mergeLines(lines, [line as ChatLine]))
    }
    channel.listen(CHAT_EVENT, onLine)
    const subscription = (channel as unknown as { subscription?: PusherSubscription }).subscription
    subscription?.bind('pusher:subscription_succeeded', reload)
    if (subscription?.subscribed) reload()
    return () => {
      channel.stopListening(CHAT_EVENT, onLine)
      subscription?.unbind('pusher:subscription_succeeded', reload)
    }
  }, [userId, conversationId])
  return useMemo(() => mergeLines(live, shared), [live, shared])
}
