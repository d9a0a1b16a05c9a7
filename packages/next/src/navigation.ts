'use client'
import { ok, type ToolDefinition } from '@toolmark/core'
import {
  type NavigationContractOptions,
  type NavigationInput,
  navigationDescription,
  navigationInputSchema,
  resolveNavigation,
} from '@toolmark/core/adapter'
import { useRouter } from 'next/navigation'
import { useMemo } from 'react'
import { useRouteTool } from './route-scope.tsx'

/** The part of Next's `useRouter()` a navigation tool uses. */
export interface NavigationRouter {
  push(href: string): void
  replace(href: string): void
}

/**
 * Options of a navigation tool: the shared contract's `pages` and `allow` (the same as
 * `@toolmark/inertia`'s), the tool's texts and the default history mode.
 */
export interface NavigationToolConfig<Page extends string> extends NavigationContractOptions<Page> {
  /** Local tool name. Default `'navigate'`. */
  name?: string
  /** User-facing title. Default `'Open page'`. */
  title?: string
  /** LLM-facing description. Default: one naming the pages. */
  description?: string
  /** `'replace'` navigates without a new history entry unless the input says otherwise. Default `'push'`. */
  history?: 'push' | 'replace'
}

export type { NavigationInput }

/** The input schema of a navigation tool (a Standard Schema that also carries its JSON Schema). */
export type NavigationSchema<Page extends string> = ReturnType<typeof navigationInputSchema<Page>>

/** What a navigation tool answers: the page (when the input named one) and the path it is going to. */
export interface NavigationResult<Page extends string> {
  page?: Page
  href: string
}

/**
 * A readOnly tool that opens one of `pages` (input `{ page }`) or another same-origin path
 * (`{ url }`), with `replace` to replace the history entry: the input and the refusals every
 * adapter's navigation tool shares (`resolveNavigation` in `@toolmark/core/adapter`): both or neither
 * of `page` and `url` → invalid; another origin, a path starting with `//` or a URL `allow` rejects →
 * refused `not_allowed`. `router.push` and `replace` return nothing to await, so the tool answers
 * `ok({ page, href })` at once and navigates in the next task: its result is sent before its own
 * scope can be disposed, and the next manifest follows from the new page's tools.
 */
export function navigationTool<Page extends string>(
  router: NavigationRouter,
  config: NavigationToolConfig<Page>,
): ToolDefinition<NavigationSchema<Page>, NavigationResult<Page>> {
  const names = config.pages ? (Object.keys(config.pages) as Page[]) : []
  return {
    name: config.name ?? 'navigate',
    title: config.title ?? 'Open page',
    description: config.description ?? navigationDescription(names),
    input: navigationInputSchema(names),
    hints: { readOnly: true },
    run: (input) => {
      const target = resolveNavigation(input, config)
      if (!(target instanceof URL)) return target
      const href = `${target.pathname}${target.search}${target.hash}`
      const mode =
        input.replace === undefined ? (config.history ?? 'push') : input.replace ? 'replace' : 'push'
      setTimeout(() => router[mode](href), 0)
      return ok(input.page === undefined ? { href } : { page: input.page, href })
    },
  }
}

/** Registers {@link navigationTool} with the app's router in the nearest route scope. */
export function useNavigationTool<Page extends string>(config: NavigationToolConfig<Page>): void {
  const router = useRouter()
  const { name, title, description, history, allow } = config
  const key = JSON.stringify(config.pages ?? null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: pages are compared by value (key).
  const tool = useMemo(
    () => navigationTool(router, config),
    [router, name, title, description, history, allow, key],
  )
  useRouteTool(tool)
}
