import * as pipeline from '../call/chunk.ts'
import { callChunk } from '../call/lazy.ts'
import { createToolmark } from '../toolmark.ts'
import type { ConfirmHandler, Toolmark, ToolmarkOptions } from '../types.ts'

/** An inline handler that approves every request as asked. */
export const approveAll: ConfirmHandler = () => ({ approved: true })

/** An inline handler that rejects every request. */
export const rejectAll: ConfirmHandler = () => ({ approved: false, reason: 'rejected' })

/**
 * A registry for tests: the production confirmation modes (inapp deferred; webmcp, mcp, tour and
 * test inline) with a default-approve inline handler, development checks on, and always active,
 * even without `document` (`live: true`, so tools can be tested in plain Node). Override anything
 * else with `options`. The call pipeline is part of this entry, so the first call starts at once
 * instead of waiting for the module a page loads on demand.
 */
export function createTestToolmark(options: ToolmarkOptions = {}): Toolmark {
  callChunk.value = pipeline
  return createToolmark({ dev: true, confirm: approveAll, ...options, live: true })
}
export { createTestAgent, type TestAgent, type TestAgentEnd, type TestAgentState } from './agent.ts'
