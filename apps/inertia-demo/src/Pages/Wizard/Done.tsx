import { ok } from '@toolmark/core'
import { useTool } from '@toolmark/react'

export default function Done() {
  useTool({
    name: 'wizard.summary',
    description: 'Summarize the finished wizard',
    hints: { readOnly: true },
    run: () => ok('done'),
  })
  return <h1>Wizard: done</h1>
}
