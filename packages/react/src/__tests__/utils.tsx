import { act, type RenderOptions, type RenderResult, render } from '@testing-library/react'
import { createTestToolmark } from '@toolmark/core/testing'
import type { ReactNode } from 'react'
import { describe } from 'vitest'
import type { Toolmark, ToolmarkConsumer } from '../index.ts'
import { ToolmarkProvider } from '../index.ts'

export type ReactMode = 'strict' | 'non-strict'

/** Renders in the suite's mode: `<StrictMode>` (double effects and renders) or without it. */
export type ModeRender = (ui: ReactNode, options?: Omit<RenderOptions, 'reactStrictMode'>) => RenderResult

/**
 * XState's `describeEachReactMode`: runs the suite twice, once under `<StrictMode>` and once without,
 * handing it a `render` for that mode (`rerender` keeps the mode).
 */
export function describeEachReactMode(
  name: string,
  suite: (ctx: { mode: ReactMode; render: ModeRender }) => void,
) {
  describe.each(['non-strict', 'strict'] as const)(`${name} (%s)`, (mode) => {
    suite({ mode, render: (ui, options) => render(ui, { ...options, reactStrictMode: mode === 'strict' }) })
  })
}

/** A test registry (dev checks on, active without document) that records every error event. */
export function setup(options: Parameters<typeof createTestToolmark>[0] = {}) {
  const tm = createTestToolmark(options)
  const errors: string[] = []
  tm.events.on('error', (e) => errors.push(`${e.level}:${e.code}`))
  const wrap = (ui: ReactNode, consumers?: readonly ToolmarkConsumer[]) => (
    <ToolmarkProvider toolmark={tm} {...(consumers ? { consumers } : {})}>
      {ui}
    </ToolmarkProvider>
  )
  return { tm, errors, wrap }
}

/** Names of the registered (visible) tools. */
export const names = (tm: Toolmark): string[] => tm.manifest().tools.map((t) => t.name)

/** Lets the core's microtask-debounced notifications and the React work they schedule run. */
export const flush = () => act(async () => {})
