import { type ConsumerHost, createToolmark, ok } from '@toolmark/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { devtools } from '../index.ts'
import { openPanel, type ToolmarkDevtoolsElement } from '../panel.ts'

const tick = () => new Promise((r) => setTimeout(r, 0))

function setup() {
  const tm = createToolmark({ dev: true })
  let host!: ConsumerHost
  tm.use((h) => {
    host = h
    return undefined
  })
  tm.register({ name: 'notes.list', description: 'List notes', hints: { readOnly: true }, run: () => ok([]) })
  tm.register({
    name: 'card.update',
    description: 'Replace the card',
    hints: { consequential: true },
    input: z.object({ number: z.string().min(4), expiry: z.string() }),
    sensitivePaths: ['number'],
    run: () => ok(),
  })
  return { tm, host }
}

const root = () => document.querySelector<ToolmarkDevtoolsElement>('toolmark-devtools')!.shadowRoot!
const text = (selector: string) => root().querySelector(selector)!.textContent ?? ''
const press = (init: KeyboardEventInit) =>
  dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, ...init }))

afterEach(() => {
  document.body.innerHTML = ''
})

describe('panel', () => {
  it('lists the tools with the callers that may see each and the current revision', async () => {
    const { tm, host } = setup()
    tm.register(
      { name: 'settings.reset', description: 'Reset', hints: { readOnly: true }, run: () => ok() },
      { scope: tm.scope('settings') },
    )
    const panel = openPanel(host, () => {})
    await tick()
    expect(text('[data-slot=rev]')).toBe(String(tm.rev))
    // Grouped by scope, the root first.
    const groups = [...root().querySelectorAll<HTMLElement>('tbody[data-scope]')].map((g) => g.dataset.scope)
    expect(groups).toEqual(['', 'settings'])
    expect(text('tbody[data-scope="settings"]')).toContain('settings.reset')
    expect(text('[data-tool="card.update"]')).toContain('consequential')
    expect(root().querySelector('[role=tab][aria-selected=true]')!.textContent).toBe('Registry')
    panel.close()
    expect(document.querySelector('toolmark-devtools')).toBeNull()
  })

  it('shows a deferred confirmation and approves it from the panel, as the card does', async () => {
    const { tm, host } = setup()
    openPanel(host, () => {})
    const first = await tm.call(
      'card.update',
      { number: '4242424242424242', expiry: '12/30' },
      { caller: 'inapp' },
    )
    expect(first.status).toBe('needs_confirmation')
    await tick()
    root().querySelector<HTMLElement>('#tab-pending')!.click()
    expect(text('#panel-pending')).toContain('s left')
    expect(text('#panel-pending')).not.toContain('4242')
    root().querySelector<HTMLElement>('[data-act=approve]')!.click()
    await tick()
    await tick()
    expect(tm.pendingConfirmations()).toEqual([])
    root().querySelector<HTMLElement>('#tab-calls')!.click()
    const calls = text('#panel-calls')
    expect(calls).toContain('deferred confirmation')
    expect(calls).toContain('approved after')
    expect(calls).not.toContain('4242')
  })

  it('moves between tabs with the arrow keys and closes with Escape', async () => {
    const { host } = setup()
    let closed = 0
    openPanel(host, () => closed++)
    const registry = root().querySelector<HTMLElement>('#tab-registry')!
    registry.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, composed: true }))
    expect(root().activeElement?.id).toBe('tab-calls')
    expect(root().querySelector<HTMLElement>('#panel-calls')!.hidden).toBe(false)
    root().activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    expect(closed).toBe(1)
  })

  it('runs a playground call as the chosen caller through the policy', async () => {
    const tm = createToolmark({ dev: true, policy: { webmcp: ['readOnly'] } })
    let host!: ConsumerHost
    tm.use((h) => {
      host = h
      return undefined
    })
    tm.register({
      name: 'notes.delete',
      description: 'Delete',
      hints: { destructive: true },
      run: () => ok(),
    })
    openPanel(host, () => {})
    await tick()
    root().querySelector<HTMLSelectElement>('[data-slot=pg-caller]')!.value = 'webmcp'
    root().querySelector<HTMLElement>('[data-act=run]')!.click()
    await tick()
    await tick()
    expect(text('[data-slot=pg-result]')).toContain('not_allowed')
    expect(text('#panel-calls')).toContain('refused (not_allowed)')
    expect(text('#panel-calls [data-slot=decision]')).toContain(
      'The policy lets webmcp call read-only tools (policy.webmcp); notes.delete is destructive',
    )
  })

  it("shows a call refused by another caller and each consumer's live status", async () => {
    const { tm, host } = setup()
    openPanel(host, () => {})
    await tm.call('missing.tool', {}, { caller: 'mcp' })
    await tick()
    expect(text('#panel-calls summary')).toContain('missing.tool by mcp: refused (unknown_tool)')
    expect(text('#panel-calls [data-slot=decision]')).toContain('No visible tool is named missing.tool')
    host.status('webmcp', { state: 'published', tools: ['notes.list'], refused: ['card.update'] })
    await tick()
    expect(text('#panel-consumers [data-consumer=webmcp]')).toBe(
      'webmcp: published; tools: notes.list; refused: card.update',
    )
    host.status('webmcp', undefined)
    await tick()
    expect(root().querySelector('#panel-consumers [data-consumer]')).toBeNull()
  })

  it('shows an imported session read-only and explains a bad file', async () => {
    const { host } = setup()
    const el = openPanel(host, () => {}) as ToolmarkDevtoolsElement
    el.import('nope', 'bad.json')
    expect(text('[data-slot=alert]')).toBe('Not a Toolmark devtools session: the file is not JSON')
    el.import(
      JSON.stringify({
        format: 'toolmark-devtools-session',
        version: 1,
        revisions: [],
        calls: [],
        errors: [],
      }),
      'old.json',
    )
    expect(text('[data-slot=banner]')).toContain('old.json')
    expect(text('#panel-registry')).toContain('No revision recorded yet.')
  })

  it('a session file with parts of the wrong shape says so and keeps the current view', async () => {
    const { host } = setup()
    const el = openPanel(host, () => {}) as ToolmarkDevtoolsElement
    await tick()
    const session = { format: 'toolmark-devtools-session', version: 1, calls: [], errors: [] }
    const broken = { rev: 1, at: 0, tools: [null], diff: { added: [], removed: [], changed: [] } }
    el.import(JSON.stringify({ ...session, revisions: [broken] }), 'broken.json')
    expect(text('[data-slot=alert]')).toBe(
      'Not a Toolmark devtools session: a part of it has the wrong shape',
    )
    expect(root().querySelector<HTMLElement>('[data-slot=banner]')!.hidden).toBe(true)
    expect(text('#panel-registry')).toContain('notes.list')
    // Values of the wrong type are shown as text, not trusted as numbers or dates.
    el.import(
      JSON.stringify({
        ...session,
        revisions: [{ rev: 'r', at: 'then', tools: [], diff: { added: [], removed: [], changed: [] } }],
      }),
      'odd.json',
    )
    expect(root().querySelector<HTMLElement>('[data-slot=alert]')!.hidden).toBe(true)
    expect(text('#panel-registry')).toContain('rev r at ?: no tool changed')
  })

  it('the entry hook opens the panel with Alt+Shift+D and closes it again', async () => {
    const tm = createToolmark({ dev: true })
    const dispose = tm.use(devtools())
    press({ altKey: true, shiftKey: true, code: 'KeyD' })
    await expect.poll(() => document.querySelector('toolmark-devtools')).not.toBeNull()
    press({ altKey: true, shiftKey: true, code: 'KeyD' })
    expect(document.querySelector('toolmark-devtools')).toBeNull()
    dispose()
  })

  it('the launcher opens the panel; disposing removes both', async () => {
    const tm = createToolmark({ dev: true })
    const dispose = tm.use(devtools({ launcher: true }))
    const button = [...document.querySelectorAll('button')].find(
      (b) => b.textContent === 'Toolmark devtools (Alt+Shift+D)',
    )!
    button.click()
    await expect.poll(() => document.querySelector('toolmark-devtools')).not.toBeNull()
    dispose()
    expect(document.querySelector('toolmark-devtools')).toBeNull()
    expect(document.body.contains(button)).toBe(false)
  })

  it('does nothing in a production build unless asked', async () => {
    const env = process.env.NODE_ENV
    process.env.NODE_ENV = 'production'
    try {
      const tm = createToolmark({ dev: true })
      const off = tm.use(devtools({ open: true }))
      await tick()
      await tick()
      expect(document.querySelector('toolmark-devtools')).toBeNull()
      off()
      const on = tm.use(devtools({ open: true, production: true }))
      await expect.poll(() => document.querySelector('toolmark-devtools')).not.toBeNull()
      on()
    } finally {
      process.env.NODE_ENV = env
    }
  })

  it('says so when the browser blocks the pop-out window', () => {
    const { host } = setup()
    const open = vi.spyOn(window, 'open').mockReturnValue(null)
    const page = openPanel(host, () => {}) as ToolmarkDevtoolsElement
    expect(page.popOut()).toBe(false)
    expect(text('[data-slot=alert]')).toBe('The browser blocked the pop-out window.')
    page.close()
    open.mockRestore()
  })
})
