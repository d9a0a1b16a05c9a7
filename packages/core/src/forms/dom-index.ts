// "@toolmark/core/forms/dom": agent-ready `<form>` elements (scanned schema, live values, re-scan).
export {
  type DomFormHandle,
  type DomFormOptions,
  domSource,
  type FormScan,
  fieldKey,
  registerDomForm,
  type SkippedField,
  scanForm,
} from './dom.ts'
