'use client'
import type { GrantStore } from '@toolmark/core'
import { grantLabel } from '@toolmark/core/adapter'
import type { ReactNode } from 'react'
import { useGrants } from './useGrants.ts'

export interface GrantsListProps {
  /** The grant store the registry was given (`createToolmark({ grants })`). */
  grants: GrantStore
}

/**
 * A small unstyled reference list of the user's grants (remembered approvals): each tool's heading, who
 * it lets through and for how long, and a Revoke button. Says so when there is none. Copy it or use it.
 */
export function GrantsList({ grants: store }: GrantsListProps): ReactNode {
  const { grants, revoke } = useGrants(store)
  if (grants.length === 0) return <p data-testid="grants-empty">No approvals are remembered.</p>
  return (
    <ul data-testid="grants">
      {grants.map((grant) => {
        const label = grantLabel(grant)
        return (
          <li key={grant.id} data-grant-id={grant.id}>
            <span>{label.heading}</span> <span>{label.detail}</span>{' '}
            <button
              type="button"
              aria-label={`Revoke ${label.heading}`}
              onClick={() => void revoke(grant.id)}
            >
              Revoke
            </button>
          </li>
        )
      })}
    </ul>
  )
}
