import { type ConsumerHost, createToolmark, ok } from '@toolmark/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type DebugModelContext, type DevtoolsReport, devtoolsWebMcp, PRODUCTION_WARNING } from '../webmcp.ts'

/**
 * A stand-in for the browser's `document.modelContext` (registerTool with a signal): Chromium's own
 * is behind a flag, and the core's WebMCP tests cover it there. It keeps what is registered.
 */
class StandInModelContext implements DebugModelContext {
  readonly tools = new Map<string, Parameters<DebugModelContext['registerTool']>[0]>()
  registerTool(
    tool: Parameters<DebugModelContext['registerTool']>[0],
    options: { signal: AbortSignal },
  ): void {
    this.tools.set(tool.name, tool)
    options.signal.addEventListener('abort', () => this.tools.delete(tool.name))
  }
}

describe('devtoolsWebMcp', () => {
  it('publishes one read-only debugging tool that answers what the panel shows, outside the registry', async () => {
    const mc = new StandInModelContext()
    const tm = createToolmark({ dev: true, policy: { webmcp: ['readOnly'] } })
    tm.register({ name: 'notes.list', description: 'List', hints: { readOnly: true }, run: () => ok([]) })
    tm.register({ name: 'notes.wipe', description: 'Wipe', hints: { destructive: true }, run: () => ok() })
    let host!: ConsumerHost
    tm.use((h) => {
      host = h
      return undefined
    })
    const detach = tm.use(devtoolsWebMcp({ modelContext: mc }))
    const tool = mc.tools.get('toolmark_devtools')!
    expect(tool.annotations).toEqual({
      readOnlyHint: true,
      untrustedContentHint: true,
      consequentialHint: false,
      debugging: true,
    })
    // Not a registry tool: no caller of the registry sees it.
    expect(tm.manifest().tools.map((t) => t.name)).toEqual(['notes.list', 'notes.wipe'])

    host.status('bridge', { state: 'open', clientId: 'c-1' })
    await tm.call('notes.wipe', {}, { caller: 'webmcp' })
    await tm.call('notes.list', {}, { caller: 'inapp' })
    const answer = (await tool.execute({})) as DevtoolsReport
    expect(answer.rev).toBe(tm.rev)
    expect(answer.tools.find((t) => t.name === 'notes.wipe')!.callers).not.toContain('webmcp')
    expect(answer.consumers).toEqual({ bridge: { state: 'open', clientId: 'c-1' } })
    expect(answer.calls.map((c) => [c.tool, c.caller, c.decision, c.code])).toEqual([
      ['notes.list', 'inapp', 'allowed', undefined],
      ['notes.wipe', 'webmcp', 'refused', 'not_allowed'],
    ])
    expect(answer.calls[1]!.reason).toContain('The policy lets webmcp call read-only tools')
    expect(JSON.parse(JSON.stringify(answer))).toEqual(answer)

    detach()
    expect(mc.tools.size).toBe(0)
  })

  it('is inert where the browser has no WebMCP', () => {
    const tm = createToolmark({ dev: true })
    expect(() => tm.use(devtoolsWebMcp())()).not.toThrow()
  })

  describe('in a production build', () => {
    const env = process.env.NODE_ENV
    afterEach(() => {
      process.env.NODE_ENV = env
      vi.restoreAllMocks()
    })

    it('publishes nothing unless the app turns it on', () => {
      process.env.NODE_ENV = 'production'
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
      const mc = new StandInModelContext()
      const tm = createToolmark()
      const off = tm.use(devtoolsWebMcp({ modelContext: mc }))
      expect(mc.tools.size).toBe(0)
      expect(warn).not.toHaveBeenCalled()
      off()
    })

    it('publishes with production: true, and warns on the console', () => {
      process.env.NODE_ENV = 'production'
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
      const mc = new StandInModelContext()
      const tm = createToolmark()
      const off = tm.use(devtoolsWebMcp({ modelContext: mc, production: true }))
      expect([...mc.tools.keys()]).toEqual(['toolmark_devtools'])
      expect(warn.mock.calls).toEqual([[PRODUCTION_WARNING]])
      off()
      expect(mc.tools.size).toBe(0)
    })

    it('warns nowhere else: a development build publishes it without a warning', () => {
      process.env.NODE_ENV = 'development'
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
      const mc = new StandInModelContext()
      createToolmark().use(devtoolsWebMcp({ modelContext: mc }))
      expect(mc.tools.size).toBe(1)
      expect(warn).not.toHaveBeenCalled()
    })
  })
})
