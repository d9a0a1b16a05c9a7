import { ok, type ToolDefinition } from '@toolmark/core'
import * as z from 'zod'
import type { Router } from './router.ts'

const navigateInput = z.object({
  page: z
    .enum(['challenges', 'settings'])
    .describe('"challenges" for the challenges list, "settings" for the payment card'),
})

/**
 * `app.navigate` (readOnly: it changes the view, not data). Navigation is deferred to the next task, so
 * the call's result is sent before the old page's scope is disposed (docs/protocol/v1.md, Navigation and full reloads); the page then publishes the
 * new tool list.
 */
export function navigateTool(router: Router): ToolDefinition<typeof navigateInput> {
  return {
    name: 'app.navigate',
    title: 'Open page',
    description:
      'Open (go to, navigate to) another page of the app: "challenges" (the challenges list: search, create and delete challenges, read their notes) or ' +
      '"settings" (account settings: update the payment card). Tools of the other page appear after navigating.',
    input: navigateInput,
    hints: { readOnly: true },
    run: ({ page }) => {
      setTimeout(() => router.navigate(page), 0)
      return ok({ page })
    },
  }
}
