import { Link, router } from '@inertiajs/react'
import { ok } from '@toolmark/core'
import { useTool } from '@toolmark/react'
import * as z from 'zod'

interface Challenge {
  id: number
  title: string
  goal: string
}

/** Visits as tool results: resolves when the visit's response is in place. */
const visit = (run: (done: { onSuccess: () => void; onError: () => void }) => void) =>
  new Promise<boolean>((resolve) => run({ onSuccess: () => resolve(true), onError: () => resolve(false) }))

export default function Index({ challenges, stats }: { challenges: Challenge[]; stats: { count: number } }) {
  useTool({
    name: 'challenges.list',
    description: 'List the challenges on this page, with their ids, titles and goals',
    hints: { readOnly: true },
    run: () => ok(challenges),
  })
  useTool({
    name: 'challenges.create',
    description: 'Create a challenge with a title and an optional goal',
    summary: (input) => `Create challenge "${input.title}"`,
    input: z.object({
      title: z.string().min(1).max(100).describe('Title'),
      goal: z.string().max(200).optional(),
    }),
    hints: { consequential: true },
    run: async (input) => ok({ created: await visit((done) => router.post('/challenges', input, done)) }),
  })
  useTool({
    name: 'challenges.delete',
    description: 'Delete a challenge by id',
    summary: (input) => `Delete challenge ${input.id}`,
    input: z.object({ id: z.number().int().describe('Challenge id') }),
    hints: { destructive: true },
    run: async ({ id }) => ok({ deleted: await visit((done) => router.delete(`/challenges/${id}`, done)) }),
  })
  return (
    <section>
      <h1>Challenges ({stats.count})</h1>
      <ul className="challenge-list" data-testid="challenge-list">
        {challenges.map((c) => (
          <li key={c.id} className="challenge" data-testid="challenge-item" data-name={c.title}>
            <Link href={`/challenges/${c.id}`}>{c.title}</Link>
          </li>
        ))}
      </ul>
      <div className="row">
        <Link href="/challenges/new">New challenge</Link>
        <button type="button" onClick={() => router.reload({ only: ['stats'] })}>
          Refresh stats
        </button>
        <button type="button" onClick={() => router.visit('/settings', { replace: true })}>
          Settings (replace)
        </button>
        <button
          type="button"
          onClick={() => router.push({ component: 'Drafts', url: '/drafts', props: (p) => p })}
        >
          Drafts (client-side)
        </button>
      </div>
    </section>
  )
}
