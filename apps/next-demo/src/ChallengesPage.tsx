'use client'
import { invalid, ok } from '@toolmark/core'
import { RouteScope, useRouteTool } from '@toolmark/next'
import { useToolmark } from '@toolmark/react'
import Link from 'next/link'
import { useRouter } from 'next/navigation'
import { type ReactNode, useMemo, useSyncExternalStore } from 'react'
import * as z from 'zod'
import { createTool, deleteTool, exportTool, notesTool, searchTool } from '../../demo/src/challenges/tools.ts'
import { useStores } from './stores.tsx'

const openInput = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(80)
    .describe('Exact name of the challenge to open, e.g. "Chess Openings"'),
})

/** `/challenges`: the list; its tools live in the route scope `challenges`. */
export function ChallengesPage(): ReactNode {
  return (
    <RouteScope name="challenges" segment="app/challenges/page">
      <ChallengeTools />
      <ChallengeList />
    </RouteScope>
  )
}

function ChallengeTools(): null {
  const { challenges: store } = useStores()
  const router = useRouter()
  useRouteTool(useMemo(() => searchTool(store), [store]))
  useRouteTool(useMemo(() => createTool(store), [store]))
  useRouteTool(useMemo(() => deleteTool(store), [store]))
  useRouteTool(useMemo(() => notesTool(store), [store]))
  useRouteTool(useMemo(() => exportTool(store), [store]))
  useRouteTool(
    useMemo(
      () => ({
        name: 'open',
        title: 'Open challenge',
        description: 'Open (show, view) the page of one challenge by its exact name, to see or rename it.',
        input: openInput,
        hints: { readOnly: true },
        run: ({ name }: z.infer<typeof openInput>) => {
          const challenge = store.findByName(name)
          if (!challenge) return invalid([{ path: 'name', message: `No challenge named "${name}"` }])
          const href = `/challenges/${encodeURIComponent(challenge.id)}`
          // push returns nothing to await: answer first, navigate in the next task.
          setTimeout(() => router.push(href), 0)
          return ok({ href })
        },
      }),
      [store, router],
    ),
  )
  return null
}

function ChallengeList(): ReactNode {
  const { challenges: store } = useStores()
  const tm = useToolmark()
  const state = useSyncExternalStore(store.subscribe, store.getState, store.getState)
  return (
    <section className="page" aria-labelledby="challenges-heading">
      <h1 id="challenges-heading">Challenges</h1>
      <ul className="challenge-list" data-testid="challenge-list">
        {state.challenges.map((challenge) => (
          <li
            key={challenge.id}
            className="challenge"
            data-testid="challenge-item"
            data-name={challenge.name}
          >
            <Link href={`/challenges/${encodeURIComponent(challenge.id)}`} data-testid="challenge-link">
              {challenge.name}
            </Link>
            <p>{challenge.description}</p>
            <button
              type="button"
              className="secondary"
              onClick={() => tm.call('challenges.delete', { name: challenge.name }, { caller: 'human' })}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}
