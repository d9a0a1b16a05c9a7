import type { ReactNode } from 'react'
import { Providers } from './providers'

// The root layout persists across client navigations: one registry and clientId per tab.
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  )
}
