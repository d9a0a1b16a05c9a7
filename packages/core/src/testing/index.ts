import type { ConfirmHandler, Toolmark, ToolmarkOptions } from '../types.ts'
import { type ToolmarkImpl, ToolmarkImplClass } from './internal.ts'

/** An inline handler that approves every request as asked. */
export const approveAll: ConfirmHandler = () => ({ approved: true })

/** An inline handler that rejects every request. */
export const rejectAll: ConfirmHandler = () => ({ approved: false, reason: 'rejected' })

/**
 * A registry for tests: the production confirmation modes (inapp deferred; webmcp, mcp, tour and
 * test inline) with a default-approve inline handler, development checks on, and always active,
 * even without `document` (so tools can be tested in plain Node). Override anything with `options`.
 */
export function createTestToolmark(options: ToolmarkOptions = {}): Toolmark {
  const impl: ToolmarkImpl = new ToolmarkImplClass({ dev: true, confirm: approveAll, ...options }, true)
  return impl
}
export { createTestAgent, type TestAgent, type TestAgentState } from './agent.ts'
