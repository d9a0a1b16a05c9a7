import type { Caller, ConfirmMode, HintClass, Policy, ToolHints } from '../types.ts'

/** Every caller, in a fixed order. */
export const CALLERS: readonly Caller[] = ['inapp', 'webmcp', 'mcp', 'tour', 'test', 'human']
/** Callers that need the user's approval for consequential and destructive tools. */
export const NON_HUMAN_CALLERS: readonly Exclude<Caller, 'human'>[] = [
  'inapp',
  'webmcp',
  'mcp',
  'tour',
  'test',
]
export const HINT_CLASSES: readonly HintClass[] = ['readOnly', 'consequential', 'destructive', 'unannotated']
/** Callers whose confirmation mode may be configured; the others are always inline. */
export const CONFIGURABLE_MODE_CALLERS: readonly Caller[] = ['inapp', 'test']
/** Default confirmation modes. */
export const DEFAULT_MODES: Readonly<Record<Exclude<Caller, 'human'>, ConfirmMode>> = {
  inapp: 'deferred',
  webmcp: 'inline',
  mcp: 'inline',
  tour: 'inline',
  test: 'inline',
}

const CALLER_SET = /* @__PURE__ */ new Set<string>(CALLERS)

/** True for a known caller name. */
export function isCaller(value: unknown): value is Caller {
  return typeof value === 'string' && CALLER_SET.has(value)
}

/** The class a policy reasons about: destructive > consequential > readOnly > unannotated. */
export function hintClass(hints: ToolHints | undefined): HintClass {
  if (hints?.destructive) return 'destructive'
  if (hints?.consequential) return 'consequential'
  if (hints?.readOnly) return 'readOnly'
  return 'unannotated'
}

/**
 * Reads a tool's `callers` option: `undefined` (every caller) or the set it names. Throws a
 * `TypeError` for anything but a non-empty array of non-human callers.
 */
export function readCallers(value: unknown, tool: string): ReadonlySet<Caller> | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || value.length === 0 || !value.every((c) => NON_HUMAN_CALLERS.includes(c)))
    throw new TypeError(`Tool "${tool}": callers must list one or more of ${NON_HUMAN_CALLERS.join(', ')}`)
  return new Set(value)
}

/** A problem found while reading options: code and message, reported by the registry. */
export interface OptionProblem {
  code: 'invalid_policy' | 'invalid_confirm_mode'
  message: string
}

/**
 * Normalizes a policy into allowed-class sets per caller. Unknown callers, `policy.human` entries and
 * unknown hint classes are reported (and ignored); omitted callers allow every class.
 */
export function compilePolicy(
  policy: Policy | undefined,
  problems: OptionProblem[],
): Map<Caller, ReadonlySet<HintClass>> {
  const all = new Set(HINT_CLASSES)
  const out = new Map<Caller, ReadonlySet<HintClass>>()
  for (const caller of CALLERS) out.set(caller, all)
  if (policy === undefined) return out
  for (const [key, classes] of Object.entries(policy as Record<string, unknown>)) {
    if (key === 'human' || !isCaller(key)) {
      problems.push({
        code: 'invalid_policy',
        message:
          key === 'human'
            ? 'policy.human is not allowed: a human may call every tool'
            : `Unknown caller "${key}" in policy`,
      })
      continue
    }
    if (!Array.isArray(classes)) {
      problems.push({ code: 'invalid_policy', message: `policy.${key} must be an array of hint classes` })
      continue
    }
    const set = new Set<HintClass>()
    for (const c of classes) {
      if (HINT_CLASSES.includes(c as HintClass)) set.add(c as HintClass)
      else
        problems.push({
          code: 'invalid_policy',
          message: `Unknown hint class "${String(c)}" in policy.${key}`,
        })
    }
    out.set(key, set)
  }
  return out
}

/** Resolves confirmation modes; only `inapp` and `test` are configurable, to 'deferred' or 'inline'. */
export function compileModes(
  modes: Partial<Record<string, unknown>> | undefined,
  problems: OptionProblem[],
): Record<Exclude<Caller, 'human'>, ConfirmMode> {
  const out = { ...DEFAULT_MODES }
  if (modes === undefined) return out
  for (const [key, value] of Object.entries(modes)) {
    if (!CONFIGURABLE_MODE_CALLERS.includes(key as Caller)) {
      problems.push({
        code: 'invalid_confirm_mode',
        message: `confirmMode.${key} is not configurable: only inapp and test are (webmcp, mcp and tour are always inline)`,
      })
    } else if (value !== 'deferred' && value !== 'inline') {
      problems.push({
        code: 'invalid_confirm_mode',
        message: `confirmMode.${key} must be 'deferred' or 'inline'`,
      })
    } else {
      out[key as 'inapp' | 'test'] = value
    }
  }
  return out
}

/**
 * Whether `caller` may see (and so call) a tool: a human always may; any other caller when the tool's
 * `callers` include it, the policy allows the tool's hint class and, for a tool that confirms inline,
 * a `confirm` handler exists.
 */
export function allows(
  settings: {
    readonly policy: ReadonlyMap<Caller, ReadonlySet<HintClass>>
    readonly modes: Readonly<Record<Exclude<Caller, 'human'>, ConfirmMode>>
    readonly options: { readonly confirm?: unknown }
  },
  tool: {
    readonly hintClass: HintClass
    readonly confirms: boolean
    readonly callers: ReadonlySet<Caller> | undefined
  },
  caller: Caller,
): boolean {
  if (caller === 'human') return true
  if (tool.callers !== undefined && !tool.callers.has(caller)) return false
  if (!settings.policy.get(caller)?.has(tool.hintClass)) return false
  return !(tool.confirms && settings.modes[caller] === 'inline' && settings.options.confirm === undefined)
}
