// The entry of "@toolmark/forms/dom": agent-ready `<form>` elements (scanned schema, live values, re-scan).
export {
  type AgentSubmitEvent,
  agentSubmit,
  type DomFormHandle,
  type DomFormOptions,
  domSource,
  FIELD_DISABLED,
  FIELD_READ_ONLY,
  FORM_NOT_SUBMITTED,
  type FormScan,
  fieldKey,
  registerDomForm,
  type SkippedField,
  scanForm,
} from './dom.ts'
