import type { ReactNode } from 'react'

export default function Loading(): ReactNode {
  return (
    <section className="page" data-testid="challenge-loading">
      Loading…
    </section>
  )
}
