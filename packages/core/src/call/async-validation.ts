import type { StandardSchemaV1 } from '@standard-schema/spec'
import { cancelled } from '../tool/result.ts'
import { threw } from '../tool/threw.ts'
import type { ToolResult } from '../types.ts'
import { blocked } from './blocked.ts'
import type { Timed } from './deadlines.ts'
import { gone } from './gone.ts'
import type { CallHost } from './host.ts'
import type { CallRequest } from './request.ts'

/** How an asynchronous validator settled: with its result, or rejected with `err`. */
export type ValidatorSettled =
  | { readonly value: StandardSchemaV1.Result<unknown> }
  | { readonly err: unknown }

/** Goes on with a validated call: answers `invalid`, confirms when needed, then runs. */
export type AfterValidation = (
  req: CallRequest,
  checked: StandardSchemaV1.Result<unknown> | undefined,
) => ToolResult | Promise<ToolResult>

/**
 * Waits for an asynchronous validator, bounded by the caller's signal and the call deadline (which
 * started when the call was accepted, before this module loaded): an abort or a deadline answers
 * `cancelled` at once (an abort or a deadline that came while this module loaded, as soon as it is
 * here), and whatever the validator settles with later is ignored. The deadline carries on into the
 * run. `settled` was attached to the validator's promise when the call was accepted, so a rejection
 * is never unhandled.
 */
export async function awaitValidation(
  tm: CallHost,
  req: CallRequest,
  settled: Promise<ValidatorSettled>,
  deadline: number,
  validated: AfterValidation,
): Promise<ToolResult> {
  const { entry, signal } = req
  const wait: Timed & { stop: ((value: ToolResult | undefined) => void) | undefined } = {
    deadline,
    tracked: false,
    stop: undefined,
    expire: () => wait.stop?.(cancelled('signal')),
  }
  let checked: StandardSchemaV1.Result<unknown> | undefined
  const stopped = await new Promise<ToolResult | undefined>((resolve) => {
    const onAbort = (): void => wait.stop?.(cancelled('signal'))
    wait.stop = (value) => {
      wait.stop = undefined
      tm.deadlines.delete(wait)
      signal?.removeEventListener('abort', onAbort)
      resolve(value)
    }
    if (signal?.aborted) return onAbort()
    tm.deadlines.add(wait)
    signal?.addEventListener('abort', onAbort, { once: true })
    settled.then((s) => {
      if ('err' in s) return wait.stop?.(threw(tm, entry, req.callId, 'validator', s.err))
      checked = s.value
      wait.stop?.(undefined)
    })
  })
  if (stopped !== undefined)
    return stopped.status === 'cancelled' ? blocked(tm, stopped, entry.name, req) : stopped
  // The registration may have changed (or its scope been hidden) while the validator ran: never
  // run a replacement, never ask to confirm a tool the caller can no longer see.
  if (entry.disposed || !entry.scope.visible())
    return blocked(tm, gone(tm, entry.name, req.rev), entry.name, req)
  req.deadline = wait.deadline
  return validated(req, checked)
}
