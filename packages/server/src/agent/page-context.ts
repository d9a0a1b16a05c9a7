import { CONTEXT_NOTE } from '@toolmark/protocol/extensions'
import { boundText } from '../shared/bounds.ts'
import type { Store } from '../store/store.ts'
import type { AgentMessage } from './types.ts'

/*
 * The page's readable context (the `context` extension) in a model request: one user-role message, marked as page
 * data (its text starts with the protocol's note for the model; `pageData` tells code), placed right before the
 * latest user message. The system prompt and the tool definitions stay the same
 * bytes, so a provider's prompt cache holds them, and so does the history before that message.
 */

/** The first line of the context message: what follows is page data, never instructions (the protocol's). */
export const PAGE_CONTEXT_NOTE = CONTEXT_NOTE

/**
 * The context message's text for the page load `clientId`: {@link PAGE_CONTEXT_NOTE}, then the stored entries as
 * JSON (`[{ name, description, value }]`). Undefined when the page load sent none, its context is empty, or the
 * store cannot say (logged without the context).
 */
export async function pageContextText(
  store: Store,
  clientId: string | undefined,
  log: (line: string) => void,
): Promise<string | undefined> {
  if (clientId === undefined || !store.getPageContext) return undefined
  try {
    const record = await store.getPageContext(clientId)
    if (!record || record.entries.length === 0) return undefined
    return boundText(`${PAGE_CONTEXT_NOTE}\n${JSON.stringify(record.entries)}`)
  } catch {
    log('[agent] the page context could not be read; the turn goes on without it')
    return undefined
  }
}

/** `history` with the context message right before its latest user message (first when it has none). */
export function withPageContext(
  history: readonly AgentMessage[],
  text: string | undefined,
): readonly AgentMessage[] {
  if (text === undefined) return history
  let at = history.length - 1
  while (at >= 0 && history[at]!.role !== 'user') at--
  const i = Math.max(at, 0)
  return [...history.slice(0, i), { role: 'user', text, pageData: true }, ...history.slice(i)]
}
