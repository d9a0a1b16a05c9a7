import { ok } from '@toolmark/core'
import { useTool } from '@toolmark/react'

export default function Show({ challenge }: { challenge: { id: number; title: string; goal: string } }) {
  useTool({
    name: 'challenge.read',
    description: 'Read the open challenge: its title and goal',
    hints: { readOnly: true, untrustedContent: true },
    run: () => ok(challenge),
  })
  return (
    <article>
      <h1>{challenge.title}</h1>
      <p>{challenge.goal}</p>
    </article>
  )
}
