import type { ModelContextLike, WebMcpTool } from '../index.ts'

/**
 * A small stand-in for the draft's `document.modelContext`, for what a real browser cannot be made
 * to do on demand (a Permissions-Policy block, a polyfill's older return values, counting calls).
 * The real API is tested in Chromium (webmcp.browser.test.ts).
 */
export class FakeModelContext implements ModelContextLike {
  readonly tools = new Map<string, WebMcpTool>()
  registerCalls = 0
  aborts = 0
  /** Reject every registration like `Permissions-Policy: tools=()`. */
  denied = false

  registerTool(
    tool: WebMcpTool,
    options?: { signal?: AbortSignal; exposedTo?: string[] },
  ): Promise<undefined> {
    this.registerCalls++
    if (this.denied)
      return Promise.reject(
        new DOMException('Access to the feature "tools" is disallowed', 'NotAllowedError'),
      )
    if (this.tools.has(tool.name))
      return Promise.reject(new DOMException('Duplicate tool name', 'InvalidStateError'))
    const signal = options?.signal
    if (signal?.aborted) return Promise.reject(signal.reason)
    this.tools.set(tool.name, tool)
    signal?.addEventListener('abort', () => {
      this.aborts++
      if (this.tools.get(tool.name) === tool) this.tools.delete(tool.name)
    })
    return Promise.resolve(undefined)
  }

  /** What an agent would call: the registered tool's `execute`. */
  execute(name: string, input: unknown, options?: { signal?: AbortSignal }): Promise<unknown> {
    const tool = this.tools.get(name)
    if (!tool) throw new Error(`no tool ${name}`)
    return tool.execute(input, options)
  }
}
