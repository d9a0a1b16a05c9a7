// "@toolmark/forms": form tools (`<name>.fill` / `<name>.submit`) and stepwise wizards over any
// form source. The DOM binding is "@toolmark/forms/dom".
export {
  copyValues,
  diffValues,
  type FormHandle,
  type FormOptions,
  type FormSource,
  type FormTools,
  type FormValues,
  fieldsSchema,
  formTools,
  REDACTED,
  registerForm,
} from './form.ts'
export {
  registerWizard,
  type WizardOptions,
  type WizardSource,
  type WizardState,
  type WizardStep,
  wizardTools,
} from './wizard.ts'
