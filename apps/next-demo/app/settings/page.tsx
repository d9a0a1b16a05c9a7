import type { ReactNode } from 'react'
import { SettingsPage } from '../../src/SettingsPage.tsx'

export default function Page(): ReactNode {
  return <SettingsPage />
}
