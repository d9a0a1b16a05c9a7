import type { ReactNode } from 'react'
import { ChallengesPage } from '../../src/ChallengesPage.tsx'

export default function Page(): ReactNode {
  return <ChallengesPage />
}
