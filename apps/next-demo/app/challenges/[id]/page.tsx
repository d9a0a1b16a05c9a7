import type { ReactNode } from 'react'
import { ChallengePage } from '../../../src/ChallengePage.tsx'

/** Awaits its params on the server, so the segment suspends (showing `loading.tsx`) before it commits. */
export default async function Page({ params }: { params: Promise<{ id: string }> }): Promise<ReactNode> {
  const { id } = await params
  return <ChallengePage id={id} />
}
