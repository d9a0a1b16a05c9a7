/**
 * `@toolmark/server/ag-ui`: a Toolmark conversation as an AG-UI 1.0 agent, for `HttpAgent` from `@ag-ui/client`
 * and the front ends on it (CopilotKit, assistant-ui). Deferred confirmations become AG-UI interrupts, answered
 * by the next run's `resume` (the page must announce bridge v1's `confirm` extension).
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
