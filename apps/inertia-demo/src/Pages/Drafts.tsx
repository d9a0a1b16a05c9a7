import { ok } from '@toolmark/core'
import { useTool } from '@toolmark/react'

/** Shown by a client-side visit (router.push): no request, no navigate or success event. */
export default function Drafts() {
  useTool({
    name: 'drafts.list',
    description: 'List draft challenges',
    hints: { readOnly: true },
    run: () => ok([]),
  })
  return <h1>Drafts</h1>
}
