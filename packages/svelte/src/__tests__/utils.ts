import { type RenderResult, render } from '@testing-library/svelte'
import { createTestToolmark } from '@toolmark/core/testing'
import { type Component, tick } from 'svelte'
import type { Toolmark, ToolmarkConsumer } from '../index.ts'
import Provider from './fixtures/Provider.svelte'

// biome-ignore lint/suspicious/noExplicitAny: any fixture component, with any props
type AnyComponent = Component<any>

/** A fixture rendered inside the provider, with a way to replace its props. */
interface Mounted extends RenderResult<AnyComponent> {
  /** Replaces the inner component's props. */
  update(next: Record<string, unknown>): Promise<void>
}

/** A test registry (dev checks on, active without document) that records every error event. */
export function setup(options: Parameters<typeof createTestToolmark>[0] = {}) {
  const tm = createTestToolmark(options)
  const errors: string[] = []
  tm.events.on('error', (e) => errors.push(`${e.level}:${e.code}`))
  /** Renders `component` with `props` inside `<ToolmarkProvider toolmark={tm} {consumers}>`. */
  const mount = (
    component: AnyComponent,
    props: Record<string, unknown> = {},
    consumers?: ToolmarkConsumer[],
  ): Mounted => {
    const view: RenderResult<AnyComponent> = render(Provider, {
      props: { tm, component, inner: props, ...(consumers ? { consumers } : {}) },
    })
    return {
      ...view,
      /** Replaces the inner component's props. */
      update: async (next: Record<string, unknown>) => {
        await view.rerender({ inner: next })
        await flush()
      },
    }
  }
  return { tm, errors, mount }
}

/** Names of the registered (visible) tools. */
export const names = (tm: Toolmark): string[] => tm.manifest().tools.map((t) => t.name)

/** Lets Svelte's effects and the core's microtask-debounced notifications run. */
export async function flush(): Promise<void> {
  await tick()
  await new Promise<void>((resolve) => queueMicrotask(resolve))
  await tick()
}
