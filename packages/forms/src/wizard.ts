import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { Issue, JsonSchema, Scope, ToolDefinition, Toolmark } from '@toolmark/core'
import { fromJsonSchema, invalid, ok, ToolmarkError } from '@toolmark/core'
import { readSensitivePaths, redactInput, type SensitivePatterns } from '@toolmark/core/adapter'
import {
  copyValues,
  diffValues,
  emptyInputThen,
  type FormHandle,
  type FormOptions,
  type FormSource,
  type FormValues,
  fieldsSchema,
  formIssues,
  READ_ONLY,
  submitHooks,
} from './form.ts'

/** One step of a wizard: an id and the top-level fields it shows. */
export interface WizardStep {
  /** `^[A-Za-z0-9_-]+$`, unique: what the agent names in `fill`. */
  id: string
  /** User-facing, app-localized. */
  title?: string
  /** The fields (top-level keys of the values) this step holds. */
  fields: readonly string[]
}

/** A form source that also knows which step the user is on (the app renders that step). */
export interface WizardSource<V extends FormValues = FormValues> extends FormSource<V> {
  /** The id of the step shown now. */
  getStep(): string
  /** Shows another step. The wizard only moves one step forward at a time, after validating. */
  setStep(id: string): void | Promise<void>
}

/** Options of `wizardTools` / `registerWizard`. */
export interface WizardOptions<V extends FormValues = FormValues>
  extends Omit<FormOptions<V>, 'source' | 'sensitivePaths'> {
  steps: readonly WizardStep[]
  source: WizardSource<V>
  /** Field paths redacted everywhere; `fill` maps them onto its input (`values.<path>`). */
  sensitivePaths?: readonly string[]
}

/** What a wizard's `state()` shows (sensitive values redacted). */
export interface WizardState {
  step: string
  steps: string[]
  values: unknown
}

/**
 * Turns a stepwise form into four tools, all `mode: 'stepwise'` in the manifest: `fill` (fields of
 * the current or an earlier step; a later step cannot be filled), `next` (validates the current
 * step, then shows the next one), `back`, and `submit` (on the last step; validates every step;
 * its confirmation shows the whole diff; an approval after the values changed is refused `stale`).
 */
export function wizardTools<V extends FormValues = FormValues>(options: WizardOptions<V>): ToolDefinition[] {
  const { source, steps } = options
  if (steps.length === 0) throw new ToolmarkError('invalid_name', 'A wizard needs at least one step')
  const ids = steps.map((s) => s.id)
  if (new Set(ids).size !== ids.length || ids.some((id) => !/^[A-Za-z0-9_-]+$/.test(id))) {
    throw new ToolmarkError('invalid_name', 'Wizard step ids must be unique and match ^[A-Za-z0-9_-]+$')
  }
  const schema = fieldsSchema(options.fields)
  let whole: StandardSchemaV1
  let fillInput: StandardSchemaV1
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const fillSchema: JsonSchema = {
    type: 'object',
    properties: {
      step: {
        type: 'string',
        enum: ids,
        description: 'The step whose fields these are (default: the current step)',
      },
      values: { type: 'object', properties, additionalProperties: false, description: 'Field values' },
    },
    required: ['values'],
    additionalProperties: false,
  }
  try {
    whole = fromJsonSchema(schema)
    fillInput = fromJsonSchema(fillSchema)
  } catch (err) {
    throw new ToolmarkError('schema_conversion_failed', 'The wizard schema cannot be compiled', {
      cause: err,
    })
  }
  const sensitive = options.sensitivePaths ?? []
  const patterns = (): SensitivePatterns => readSensitivePaths(sensitive)
  const fillSensitive = sensitive.map((p) => `values.${p}`)
  const label = options.title ?? options.name
  const {
    baseline: _baseline,
    resetBaseline: _reset,
    ...submitting
  } = submitHooks(source, options.summary, label, patterns)
  const index = (): number => Math.max(0, ids.indexOf(source.getStep()))
  const stepOf = (field: string): number => steps.findIndex((s) => s.fields.includes(field))
  const state = (): WizardState => ({
    step: ids[index()] as string,
    steps: [...ids],
    values: redactInput(source.getValues(), patterns()).value,
  })
  const stepIssues = async (i: number): Promise<Issue[]> => {
    const fields = (steps[i] as WizardStep).fields
    return formIssues(whole, source as FormSource<FormValues>, fields)
  }
  const common = {
    ...(options.title === undefined ? {} : { title: options.title }),
    mode: 'stepwise' as const,
    state,
  }
  const first = steps[0] as WizardStep
  const fill: ToolDefinition = {
    ...common,
    name: 'fill',
    // Only the page's unsaved values change (nothing is saved before submit): runs without asking.
    hints: READ_ONLY,
    description: `Fill a step of the stepwise form to: ${options.description}. Steps in order: ${steps.map((s) => `${s.id} (${s.fields.join(', ')})`).join('; ')}. Fill the current step (or revisit an earlier one), then call ${options.name}.next; a later step cannot be filled yet. Returns the changed fields.`,
    input: fillInput,
    sensitivePaths: fillSensitive,
    async run(input) {
      const { step, values } = input as { step?: string; values: Partial<V> }
      const at = step === undefined ? index() : ids.indexOf(step)
      const issues: Issue[] = []
      if (at > index())
        issues.push({
          path: 'step',
          message: `Complete step "${ids[index()]}" first: steps cannot be skipped`,
        })
      for (const field of Object.keys(values)) {
        if (stepOf(field) !== at) {
          const owner = steps[stepOf(field)]
          issues.push({
            path: `values.${field}`,
            message: owner ? `Field "${field}" belongs to step "${owner.id}"` : `Unknown field "${field}"`,
          })
        }
      }
      if (issues.length > 0) return invalid(issues)
      const before = copyValues(source.getValues())
      await source.setValues(values)
      const changes = diffValues(before, source.getValues(), patterns())
      const own = await formIssues(whole, source as FormSource<FormValues>, Object.keys(values))
      return own.length > 0 ? invalid(own.map((i) => ({ ...i, path: `values.${i.path}` }))) : ok(changes)
    },
  }
  const next: ToolDefinition = {
    ...common,
    name: 'next',
    hints: READ_ONLY,
    description: `Validate the current step of the form and go to the next one. Returns the new step and its fields.`,
    input: fromJsonSchema({ type: 'object', properties: {}, additionalProperties: false }),
    async run() {
      const i = index()
      if (i === steps.length - 1) return invalid(`This is the last step: call ${options.name}.submit`)
      const issues = await stepIssues(i)
      if (issues.length > 0) return invalid(issues)
      const to = steps[i + 1] as WizardStep
      await source.setStep(to.id)
      return ok({ step: to.id, fields: [...to.fields] })
    },
  }
  const back: ToolDefinition = {
    ...common,
    name: 'back',
    hints: READ_ONLY,
    description: 'Go back to the previous step of the form (values are kept).',
    input: fromJsonSchema({ type: 'object', properties: {}, additionalProperties: false }),
    async run() {
      const i = index()
      if (i === 0) return invalid(`Already on the first step "${first.id}"`)
      const to = steps[i - 1] as WizardStep
      await source.setStep(to.id)
      return ok({ step: to.id, fields: [...to.fields] })
    },
  }
  const submit: ToolDefinition = {
    ...common,
    name: 'submit',
    description: `Submit the stepwise form on its last step. Takes no input. The user confirms the whole diff before it runs.`,
    sensitivePaths: sensitive,
    input: emptyInputThen(async () => {
      const i = index()
      if (i !== steps.length - 1) return [{ path: '', message: `Complete step "${ids[i]}" first` }]
      for (let s = 0; s < steps.length; s++) {
        const issues = await stepIssues(s)
        if (issues.length > 0) return issues
      }
      return []
    }),
    hints: options.destructive ? { destructive: true } : { consequential: true },
    ...submitting,
  }
  return [fill, next, back, submit]
}

/** Registers a wizard's tools in a new scope named `options.name` under `target`. */
export function registerWizard<V extends FormValues>(
  target: Toolmark | Scope,
  options: WizardOptions<V>,
): FormHandle {
  const tools = wizardTools(options)
  const scope = target.scope(options.name)
  for (const tool of tools) scope.register(tool)
  return { name: scope.path, scope, dispose: () => scope.dispose() }
}
