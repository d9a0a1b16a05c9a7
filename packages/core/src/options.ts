import { compileModes, compilePolicy, type OptionProblem } from './policy/policy.ts'
import type { Caller, ConfirmMode, HintClass, ToolmarkOptions } from './types.ts'

/** Documented defaults. */
export const DEFAULTS = {
  confirmExpiryMs: 600_000,
  callTimeoutMs: 30_000,
  abortGraceMs: 1_000,
  budget: 40,
} as const

/** `ToolmarkOptions` as the registry uses them: policy and modes compiled, durations defaulted. */
export interface Settings {
  readonly policy: Map<Caller, ReadonlySet<HintClass>>
  readonly modes: Record<Exclude<Caller, 'human'>, ConfirmMode>
  readonly expiryMs: number
  readonly timeoutMs: number
  readonly graceMs: number
  readonly budget: number
}

/**
 * Reads `options`. A bad policy or confirmation mode is added to `problems` and ignored; a
 * non-finite or non-positive duration or budget takes its default (`abortGraceMs` may be 0).
 */
export function readOptions(options: ToolmarkOptions, problems: OptionProblem[]): Settings {
  return {
    policy: compilePolicy(options.policy, problems),
    modes: compileModes(options.confirmMode, problems),
    expiryMs: positive(options.confirmExpiryMs, DEFAULTS.confirmExpiryMs),
    timeoutMs: positive(options.callTimeoutMs, DEFAULTS.callTimeoutMs),
    graceMs: positive(options.abortGraceMs, DEFAULTS.abortGraceMs, true),
    budget: positive(options.budget, DEFAULTS.budget),
  }
}

function positive(value: number | undefined, fallback: number, allowZero = false): number {
  return typeof value === 'number' && Number.isFinite(value) && (allowZero ? value >= 0 : value > 0)
    ? value
    : fallback
}
