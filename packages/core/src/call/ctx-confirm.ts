import { clock } from '../clock.ts'
import { confirmInRun } from '../confirm/inline.ts'
import type { Entry } from '../tool/entry.ts'
import type { Caller, CtxConfirmOutcome, FieldChange } from '../types.ts'
import type { Timed } from './deadlines.ts'
import type { CallHost } from './host.ts'

/** Development-only code tests `process.env.NODE_ENV` where it sits (the rule: report.ts). */
declare const process: { env: { NODE_ENV?: string } }

/** The run a `ctx.confirm` comes from (call/run.ts): its deadline pauses while the user is asked. */
export interface ConfirmingRun extends Timed {
  readonly callId: string
  readonly caller: Caller
  readonly signal: AbortSignal
}

/** What only the run itself knows: its input, and whether it has ended (settled or aborted). */
export interface RunState {
  readonly input: unknown
  ended(): boolean
}

/**
 * `ctx.confirm` of a run whose caller is not `human`: asks the app's inline handler (see
 * docs/guides/confirmations.md) unless the run has ended or the caller has no inline confirmation
 * path; the call deadline pauses meanwhile and resumes unless the run has ended by then.
 */
export async function ctxConfirm(
  tm: CallHost,
  entry: Entry,
  run: ConfirmingRun,
  state: RunState,
  request: { summary: string; changes?: FieldChange[] },
): Promise<CtxConfirmOutcome> {
  if (state.ended()) return { approved: false, reason: 'cancelled' }
  if (tm.options.confirm === undefined || tm.modes[run.caller as Exclude<Caller, 'human'>] !== 'inline') {
    if (process.env.NODE_ENV !== 'production')
      tm.warn(
        'ctx_confirm_unavailable',
        `ctx.confirm in "${entry.name}": caller ${run.caller} has no inline confirmation path`,
        entry.name,
      )
    return { approved: false, reason: 'confirmation_unavailable' }
  }
  const remaining = run.deadline - clock.mono()
  tm.deadlines.delete(run)
  const answer = await confirmInRun(
    tm,
    entry,
    { callId: run.callId, caller: run.caller, input: state.input, signal: run.signal },
    request,
  )
  if (!state.ended()) {
    run.deadline = clock.mono() + remaining
    tm.deadlines.add(run)
  }
  return answer
}
