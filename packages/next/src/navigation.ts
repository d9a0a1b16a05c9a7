'use client'
import { fromJsonSchema, ok, type ToolDefinition } from '@toolmark/core'
import { useRouter } from 'next/navigation'
import { useMemo } from 'react'
import { useRouteTool } from './route-scope.tsx'

/** The part of Next's `useRouter()` a navigation tool uses. */
export interface NavigationRouter {
  push(href: string): void
  replace(href: string): void
}

export interface NavigationToolConfig<Page extends string> {
  /** Local tool name. Default `'navigate'`. */
  name?: string
  /** User-facing title. Default `'Open page'`. */
  title?: string
  /** LLM-facing description. Default: one naming the pages. */
  description?: string
  /** Page name → path, e.g. `{ challenges: '/challenges', settings: '/settings' }`. */
  pages: Readonly<Record<Page, string>>
  /** `'replace'` navigates without a new history entry. Default `'push'`. */
  history?: 'push' | 'replace'
}

/** The input of a navigation tool: one of the configured page names. */
export interface NavigationInput<Page extends string> {
  page: Page
}

/** The input schema of a navigation tool (a Standard Schema that also carries its JSON Schema). */
export type NavigationSchema<Page extends string> = ReturnType<typeof fromJsonSchema<NavigationInput<Page>>>

/** What a navigation tool answers: the page and the path it is going to. */
export interface NavigationResult<Page extends string> {
  page: Page
  href: string
}

/**
 * A readOnly tool that opens one of `pages`. `router.push` and `replace` return nothing to await,
 * so the tool answers `ok({ page, href })` at once and navigates in the next task: its result is sent
 * before its own scope can be disposed, and the next manifest follows from the new page's tools.
 */
export function navigationTool<Page extends string>(
  router: NavigationRouter,
  config: NavigationToolConfig<Page>,
): ToolDefinition<NavigationSchema<Page>, NavigationResult<Page>> {
  const names = Object.keys(config.pages) as Page[]
  const input = fromJsonSchema<NavigationInput<Page>>({
    type: 'object',
    properties: { page: { enum: names, description: `One of: ${names.join(', ')}` } },
    required: ['page'],
    additionalProperties: false,
  })
  const mode = config.history ?? 'push'
  return {
    name: config.name ?? 'navigate',
    title: config.title ?? 'Open page',
    description:
      config.description ??
      `Open (go to, navigate to) another page of the app: ${names.join(', ')}. The tools of that page appear after navigating.`,
    input,
    hints: { readOnly: true },
    run: ({ page }) => {
      const href = config.pages[page]
      setTimeout(() => router[mode](href), 0)
      return ok({ page, href })
    },
  }
}

/** Registers {@link navigationTool} with the app's router in the nearest route scope. */
export function useNavigationTool<Page extends string>(config: NavigationToolConfig<Page>): void {
  const router = useRouter()
  const { name, title, description, history } = config
  const key = JSON.stringify(config.pages)
  // biome-ignore lint/correctness/useExhaustiveDependencies: pages are compared by value (key).
  const tool = useMemo(() => navigationTool(router, config), [router, name, title, description, history, key])
  useRouteTool(tool)
}
