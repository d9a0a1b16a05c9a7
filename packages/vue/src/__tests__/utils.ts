import { createTestToolmark } from '@toolmark/core/testing'
import { enableAutoUnmount, flushPromises, mount } from '@vue/test-utils'
import { afterEach } from 'vitest'
import type { Component } from 'vue'
import { type Toolmark, type ToolmarkConsumer, ToolmarkPlugin } from '../index.ts'

enableAutoUnmount(afterEach)

/** A test registry (dev checks on, active without document) that records every error event. */
export function setup(options: Parameters<typeof createTestToolmark>[0] = {}) {
  const tm = createTestToolmark(options)
  const errors: string[] = []
  tm.events.on('error', (e) => errors.push(`${e.level}:${e.code}`))
  const render = (
    component: Component,
    props: Record<string, unknown> = {},
    consumers?: ToolmarkConsumer[],
  ) =>
    mount(component, {
      props,
      attachTo: document.body,
      global: { plugins: [[ToolmarkPlugin, consumers ? { toolmark: tm, consumers } : { toolmark: tm }]] },
    })
  return { tm, errors, render }
}

/** Names of the registered (visible) tools. */
export const names = (tm: Toolmark): string[] => tm.manifest().tools.map((t) => t.name)

/** Lets the core's microtask-debounced notifications and Vue's scheduler run. */
export const flush = () => flushPromises()
