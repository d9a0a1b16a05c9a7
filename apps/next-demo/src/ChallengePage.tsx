'use client'
import { invalid, ok } from '@toolmark/core'
import { RouteScope, useRouteTool } from '@toolmark/next'
import { useToolmarkContext } from '@toolmark/react'
import Link from 'next/link'
import { useParams } from 'next/navigation'
import { type ReactNode, useMemo, useSyncExternalStore } from 'react'
import * as z from 'zod'
import { useStores } from './stores.tsx'

const renameInput = z.object({
  name: z.string().trim().min(1).max(80).describe('The new name of the challenge shown on this page'),
})

/**
 * `/challenges/[id]`: one challenge. Its tools (`challenge.details`, `challenge.rename`) read the
 * current params on every call, so going from one challenge to another never runs a stale closure.
 * The challenge open is readable context (`challenge.current`): the agent sees it with each turn.
 */
export function ChallengePage({ id }: { id: string }): ReactNode {
  return (
    <RouteScope name="challenge" segment="app/challenges/[id]/page">
      <ChallengeTools />
      <ChallengeView id={id} />
    </RouteScope>
  )
}

function useCurrentId(): string {
  const params = useParams<{ id: string }>()
  return decodeURIComponent(params?.id ?? '')
}

function ChallengeTools(): null {
  const { challenges: store } = useStores()
  const id = useCurrentId()
  const current = () => store.getState().challenges.find((c) => c.id === id)
  useRouteTool({
    name: 'details',
    title: 'Challenge details',
    description: 'Show (describe, read) the challenge open on this page: its id, name and description.',
    hints: { readOnly: true },
    run: () => {
      const challenge = current()
      if (!challenge) return invalid([{ path: '', message: `No challenge with id "${id}"` }])
      return ok({ id: challenge.id, name: challenge.name, description: challenge.description })
    },
  })
  useRouteTool(
    useMemo(
      () => ({
        name: 'rename',
        title: 'Rename challenge',
        description: 'Rename (change the name of) the challenge open on this page.',
        input: renameInput,
        hints: { consequential: true },
        summary: ({ name }: z.infer<typeof renameInput>) => `Rename this challenge to "${name}"`,
        run: ({ name }: z.infer<typeof renameInput>) => {
          const challenge = store.getState().challenges.find((c) => c.id === id)
          if (!challenge) return invalid([{ path: 'name', message: 'This challenge no longer exists' }])
          const next = store.update(challenge.id, { name, description: challenge.description })
          if (!next) return invalid([{ path: 'name', message: `A challenge named "${name}" already exists` }])
          return ok({ id: next.id, name: next.name })
        },
      }),
      [store, id],
    ),
  )
  return null
}

function ChallengeView({ id }: { id: string }): ReactNode {
  const { challenges: store } = useStores()
  const state = useSyncExternalStore(store.subscribe, store.getState, store.getState)
  const index = state.challenges.findIndex((c) => c.id === decodeURIComponent(id))
  const challenge = state.challenges[index]
  const next = state.challenges[(index + 1) % state.challenges.length]
  useToolmarkContext({
    name: 'current',
    title: 'Challenge open',
    description: 'The challenge open on this page (null when the page names no challenge).',
    value: challenge ? { id: challenge.id, name: challenge.name, description: challenge.description } : null,
  })
  return (
    <section className="page" aria-labelledby="challenge-heading" data-testid="challenge-page" data-id={id}>
      <h1 id="challenge-heading">{challenge?.name ?? 'Unknown challenge'}</h1>
      <p>{challenge?.description ?? `There is no challenge with id “${id}”.`}</p>
      {next && next !== challenge && (
        <Link href={`/challenges/${encodeURIComponent(next.id)}`} data-testid="challenge-next">
          Next: {next.name}
        </Link>
      )}
    </section>
  )
}
