import { ok } from '@toolmark/core'
import { useTool } from '@toolmark/react'
import { useState } from 'react'
import * as z from 'zod'

export default function Settings() {
  const [theme, setTheme] = useState('light')
  useTool({
    name: 'settings.theme',
    description: 'Set the color theme to light or dark',
    input: z.object({ theme: z.enum(['light', 'dark']) }),
    run: (input) => {
      setTheme(input.theme)
      return ok({ theme: input.theme })
    },
  })
  return <h1>Settings ({theme})</h1>
}
