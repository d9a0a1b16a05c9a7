import type { Metadata } from 'next'
import type { ReactNode } from 'react'
import '../../demo/src/styles.css'
import { Providers } from '../src/Providers.tsx'

// An empty icon, as the Vite demo's `<link rel="icon" href="data:,">`: no request for /favicon.ico.
export const metadata: Metadata = { title: 'Challenges (Next.js)', icons: { icon: 'data:,' } }

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
