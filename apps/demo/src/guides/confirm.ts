import { createConfirmQueue } from '@toolmark/core'

/**
 * Inline confirmations (tours, WebMCP, MCP): the registry's `confirm` handler; `<Guides>` renders the
 * open requests as cards. The agent's own calls stay deferred (cards in the chat).
 */
export const inlineConfirms = createConfirmQueue()
