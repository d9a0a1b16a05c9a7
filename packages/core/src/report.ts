import type { ErrorEventCode } from './codes.ts'
import { ToolmarkError } from './errors.ts'
import { Emitter } from './events.ts'
import type { ToolmarkErrorEvent } from './types.ts'

/**
 * Development-only warnings and checks sit behind `process.env.NODE_ENV !== 'production'`, written
 * out where each is tested: bundlers replace that expression (Vite, webpack and Next by mode; esbuild
 * when minifying for the browser, or with `--define`) before they look for dead code, so a production
 * bundle drops every such branch with its messages and the functions only it calls (a constant
 * holding the test would be folded too late for that). Node reads it at run time; where a branch is
 * on a hot path a cheap test comes first. Without a bundler in a browser, define
 * `globalThis.process = { env: { NODE_ENV: 'production' } }` before the first import, as for React.
 *
 * Only warnings (`level: 'warning'` events), the `inert_registry` notice, the output check and the
 * registration-time schema conversion depend on it; misconfiguration still throws with `dev: true`
 * and is reported with the same codes and messages in every build.
 */
declare const process: { env: { NODE_ENV?: string } }

/**
 * How the registry tells about problems, through its `error` event: misconfiguration throws in
 * development and is reported in production; warnings exist in development only.
 */
export class Reporter {
  // Fields the constructor assigns are `declare`d: no field declaration in the published code.
  declare readonly dev: boolean
  readonly emitter = new Emitter()
  readonly events = { on: this.emitter.on.bind(this.emitter) }
  #saidInert = false

  constructor(dev: boolean) {
    this.dev = dev
  }

  /** Emits an `error` event (always a warning or a production report). */
  report(code: ErrorEventCode, message: string, extra?: Partial<ToolmarkErrorEvent>): void {
    this.emitter.emit('error', { code, message, level: 'error', ...extra })
  }

  /** Misconfiguration: throws in development, reports in production. */
  misconfigured(code: ErrorEventCode, message: string, tool?: string): void {
    if (this.dev) throw new ToolmarkError(code, message)
    this.report(code, message, tool === undefined ? {} : { tool })
  }

  /** A development warning event (nothing in production). */
  warn(code: ErrorEventCode, message: string, tool?: string): void {
    if (process.env.NODE_ENV !== 'production' && this.dev)
      this.emitter.emit('error', { code, message, level: 'warning', ...(tool === undefined ? {} : { tool }) })
  }

  /** A tool's JSON Schema could not be derived. */
  conversionFailed(entry: { readonly name: string }, err: unknown): void {
    this.report('schema_conversion_failed', `JSON Schema conversion failed for "${entry.name}"`, {
      tool: entry.name,
      cause: err,
    })
  }

  /**
   * An inert development registry says so once, the first time it is called: server rendering
   * registers (inertly) but never calls, so it stays silent there. Without an `error` listener
   * the warning goes to the console.
   */
  sayInert(): void {
    if (process.env.NODE_ENV === 'production' || !this.dev || this.#saidInert) return
    this.#saidInert = true
    const message =
      'No document: this registry is inert (server rendering), so it registers nothing and every call answers unknown_tool. Pass live: true to createToolmark to run it without a DOM (Node scripts, tests, CLIs).'
    if (this.emitter.has('error')) this.warn('inert_registry', message)
    else console.warn(`[toolmark] inert_registry: ${message}`)
  }
}
