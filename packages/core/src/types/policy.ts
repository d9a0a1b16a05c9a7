/** Who calls, and the hint classes a policy gives each caller. */

/** Who is calling a tool. Policy and confirmation behaviour depend on it. */
export type Caller = 'inapp' | 'webmcp' | 'mcp' | 'tour' | 'test' | 'human'

/** A caller a tool can be limited to with `callers` (every caller but `human`, who may call every tool). */
export type ToolCaller = Exclude<Caller, 'human'>

/**
 * The class a policy reasons about. A tool's class is `destructive` if it is destructive, else
 * `consequential`, else `readOnly`, else `unannotated`.
 */
export type HintClass = 'readOnly' | 'consequential' | 'destructive' | 'unannotated'

/** Per-caller policy: the hint classes each caller may see and call. Omitted callers allow all. */
export type Policy = Partial<Record<Exclude<Caller, 'human'>, readonly HintClass[]>>
