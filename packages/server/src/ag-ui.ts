/**
 * `@toolmark/server/ag-ui`: a Toolmark conversation as an AG-UI 1.0 agent, for `HttpAgent` from `@ag-ui/client`
 * and the front ends on it (CopilotKit, assistant-ui). Deferred confirmations become AG-UI interrupts, answered
 * in the page (`tm.confirmPending`, by the front end that runs there) and then by the next run's `resume`, which
 * streams the page's outcome. The page and the bridge protocol are unchanged.
 */
export {
  AG_UI_CAPABILITIES,
  type AgUiErrorCode,
  type AgUiEvent,
  type AgUiInterrupt,
  type AgUiOptions,
  type AgUiServer,
  agUiHandler,
  MAX_AG_UI_BODY_BYTES,
  RESUME_SCHEMA,
} from './http/ag-ui.ts'
