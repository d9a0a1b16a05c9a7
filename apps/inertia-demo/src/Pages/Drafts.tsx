import { ok } from '@toolmark/core'
import { useTool } from '@toolmark/react'

/**
 * Shown by a client-side visit (`router.push` to /drafts): no request, no navigate or success event.
 * Laravel renders /drafts too, so the chat's partial reloads keep this page instead of undoing the push.
 */
export default function Drafts() {
  useTool({
    name: 'drafts.list',
    description: 'List draft challenges',
    hints: { readOnly: true },
    run: () => ok([]),
  })
  return <h1>Drafts</h1>
}
