import type { Metadata } from 'next'
import type { ReactNode } from 'react'
import '../../demo/src/styles.css'
import { Providers } from '../src/Providers.tsx'

export const metadata: Metadata = { title: 'Challenges (Next.js)' }

/** The root layout: it persists across client navigations, so the tab's registry and clientId do too. */
export default function RootLayout({ children }: { children: ReactNode }): ReactNode {
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  )
}
