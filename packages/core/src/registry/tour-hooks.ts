import type { ErrorEventCode } from '../codes.ts'
import type { Entry } from '../tool/entry.ts'
import { redactInput } from '../tool/redact.ts'
import type { ToolmarkErrorEvent } from '../types.ts'

/** What the tour hooks read: the registered tools, and where a throwing hook is reported. */
export interface HooksHost {
  readonly tools: ReadonlyMap<string, Entry>
  report(code: ErrorEventCode, message: string, extra?: Partial<ToolmarkErrorEvent>): void
}

/** `tm.state`: a tool's `state()`, redacted at its sensitive paths; a throw gives `undefined` and `tool_threw`. */
export function stateOf(host: HooksHost, name: string): unknown {
  const entry = host.tools.get(name)
  if (!entry?.def.state) return undefined
  try {
    return redactInput(entry.def.state(), entry.def.sensitivePaths).value
  } catch (err) {
    host.report('tool_threw', `state() of "${name}" threw`, { tool: name, cause: err })
    return undefined
  }
}

/** `tm.anchor`: the element of a tool's anchor (or of one parameter's); `null` when none, or it throws. */
export function anchorOf(host: HooksHost, name: string, param?: string): Element | null {
  const anchors = host.tools.get(name)?.def.anchors
  const target = param === undefined ? anchors?.tool : anchors?.params?.[param]
  if (target === undefined) return null
  try {
    if (typeof target === 'function') return target() ?? null
    return typeof document === 'undefined' ? null : document.querySelector(target)
  } catch (err) {
    host.report('tool_threw', `anchor of "${name}" threw`, { tool: name, cause: err })
    return null
  }
}
