'use client'
import { ok } from '@toolmark/core'
import { useRouteScope, useRouteTool } from '@toolmark/next'
import { useState } from 'react'
import * as z from 'zod'

// settings.setTheme exists while this page is shown, and goes away when navigation leaves it.
export default function SettingsPage() {
  const [theme, setTheme] = useState<'light' | 'dark'>('light')
  const scope = useRouteScope('settings')
  useRouteTool(
    {
      name: 'setTheme',
      description: 'Switch the colour theme of the app.',
      input: z.object({ theme: z.enum(['light', 'dark']) }),
      hints: { consequential: true }, // an in-app agent gets a confirmation card first
      summary: ({ theme }) => `Switch to the ${theme} theme`,
      run: ({ theme }) => {
        setTheme(theme)
        return ok({ theme })
      },
    },
    { scope },
  )
  return <h1>Theme: {theme}</h1>
}
