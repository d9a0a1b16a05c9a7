import type { StandardSchemaV1 } from '@standard-schema/spec'
import type {
  AnchorTarget,
  FieldChange,
  Issue,
  JsonSchema,
  RunResult,
  Scope,
  ToolContext,
  ToolDefinition,
  ToolHandle,
  Toolmark,
} from '@toolmark/core'
import { fromJsonSchema, invalid, ok, REDACTED, ToolmarkError } from '@toolmark/core'
import {
  isPlainObject,
  readSensitivePaths,
  redactChanges,
  redactInput,
  type SensitivePatterns,
} from '@toolmark/core/adapter'

/** A form's values: field path → value. */
export type FormValues = Record<string, unknown>

/** Where a form's values live: the DOM, a form library or plain state. The form tools go through it. */
export interface FormSource<V extends FormValues = FormValues> {
  /** The current values (a fresh object or one the source does not mutate later). */
  getValues(): V
  /** Sets the given fields, leaving the others as they are. */
  setValues(values: Partial<V>): void | Promise<void>
  /**
   * The app's own validation, as issues at field paths (`[]` when valid). `paths` limits it to
   * the fields a fill touched; without it, the whole form.
   */
  validate?(paths?: readonly string[]): readonly Issue[] | Promise<readonly Issue[]>
  /** Submits the values after approval. `undefined` means `ok()`. */
  submit(values: V, ctx: ToolContext): RunResult | undefined | Promise<RunResult | undefined>
}

/** Options of `formTools` / `registerForm`. */
export interface FormOptions<V extends FormValues = FormValues> {
  /** The scope name of the two tools: `signup` gives `signup.fill` and `signup.submit`. */
  name: string
  /** LLM-facing: what submitting the form does ("Create a challenge"). */
  description: string
  /** User-facing, app-localized. */
  title?: string
  /**
   * The fields as a JSON Schema object (`properties`, `required`, ...), or a Standard Schema whose
   * library can emit JSON Schema (zod 4, ArkType, `fromJsonSchema`). Fill accepts any subset of
   * the fields; submit checks the whole form against it.
   */
  fields: JsonSchema | StandardSchemaV1
  source: FormSource<V>
  /** Field paths redacted everywhere (diffs, cards, `state()`, events). `[]` matches any index. */
  sensitivePaths?: readonly string[] | (() => readonly string[])
  /**
   * The submit card's summary (default: `Submit "<title>"`); a function gets the values with
   * sensitive fields `'[redacted]'`.
   */
  summary?: string | ((values: V) => string)
  /** Submitting cannot be undone (a Delete-style card). Default false: consequential. */
  destructive?: boolean
  /** Tour anchors: the form element and one per field. */
  anchors?: { form?: AnchorTarget; fields?: Record<string, AnchorTarget> }
}

/** The two tool definitions of a form, to register yourself (e.g. inside a scope). */
export interface FormTools<V extends FormValues = FormValues> {
  fill: ToolDefinition<StandardSchemaV1<unknown, Partial<V>>, FieldChange[]>
  submit: ToolDefinition<StandardSchemaV1<unknown, Record<string, never>>>
  /** The values the next submit's diff starts from: the last submitted values (initially the first read). */
  baseline(): V
  /** Makes the current values the baseline (e.g. after the app saved them itself). */
  resetBaseline(): void
}

/** What `registerForm` returns. */
export interface FormHandle extends ToolHandle {
  /** The scope holding `fill` and `submit`. */
  readonly scope: Scope
}

/** Fill, next and back change only the page's unsaved values: they are annotated read-only. */
export const READ_ONLY = Object.freeze({ readOnly: true })

const SUBMIT_INPUT: JsonSchema = { type: 'object', properties: {}, additionalProperties: false }

/** Empty values are absent in a diff: `undefined`, `null`, `''` and `[]`. */
function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (isEmpty(a) && isEmpty(b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  return JSON.stringify(a) === JSON.stringify(b)
}

/**
 * The field changes from `before` to `after`, one per changed leaf (plain objects are walked,
 * arrays and other values are leaves), in the order of `after`'s keys then `before`'s. Empty values
 * (`undefined`, `null`, `''`, `[]`) are absent: `{ path }` alone means empty → empty never occurs,
 * `{ path, after }` means it was empty. Values at `sensitivePaths` read `'[redacted]'`.
 */
export function diffValues(
  before: unknown,
  after: unknown,
  sensitivePaths?: readonly string[] | (() => readonly string[]) | SensitivePatterns,
): FieldChange[] {
  const out: FieldChange[] = []
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (isPlainObject(a) || isPlainObject(b)) {
      const ao = isPlainObject(a) ? a : {}
      const bo = isPlainObject(b) ? b : {}
      const keys = new Set([...Object.keys(bo), ...Object.keys(ao)])
      for (const key of keys) walk(ao[key], bo[key], path === '' ? key : `${path}.${key}`)
      return
    }
    if (same(a, b)) return
    const change: FieldChange = { path }
    if (!isEmpty(a)) change.before = a
    if (!isEmpty(b)) change.after = b
    out.push(change)
  }
  walk(before, after, '')
  return redactChanges(out, sensitivePaths === undefined ? [] : sensitivePaths)
}

/** The JSON Schema of a form's fields, from a JSON Schema or a Standard Schema that can emit one. */
export function fieldsSchema(fields: JsonSchema | StandardSchemaV1): JsonSchema {
  const std = (fields as Partial<StandardSchemaV1>)['~standard'] as
    | { jsonSchema?: { input(o: { target: string }): JsonSchema } }
    | undefined
  if (std === undefined) return fields as JsonSchema
  if (typeof std.jsonSchema?.input !== 'function') {
    throw new ToolmarkError(
      'schema_conversion_failed',
      'The form schema offers no JSON Schema (~standard.jsonSchema); pass the fields as JSON Schema',
    )
  }
  const { $schema: _drop, ...schema } = std.jsonSchema.input({ target: 'draft-2020-12' })
  return schema
}

/** The fill schema: every field optional, unknown fields rejected. */
function partialSchema(schema: JsonSchema): JsonSchema {
  const { required: _required, ...rest } = schema
  return { ...rest, type: 'object', additionalProperties: false }
}

function compile(schema: JsonSchema, what: string): StandardSchemaV1 {
  try {
    return fromJsonSchema(schema)
  } catch (err) {
    throw new ToolmarkError('schema_conversion_failed', `The ${what} schema cannot be compiled`, {
      cause: err,
    })
  }
}

/** Validates a value with a synchronous Standard Schema, as issues. */
function check(schema: StandardSchemaV1, value: unknown): Issue[] {
  const r = schema['~standard'].validate(value) as StandardSchemaV1.Result<unknown>
  return (r.issues ?? []).map((i) => ({
    path: (i.path ?? []).map((s) => String(typeof s === 'object' ? s.key : s)).join('.'),
    message: i.message,
  }))
}

/** A Standard Schema that only accepts `{}` and then runs `extra` (the form's own validation). */
export function emptyInputThen(
  extra: () => readonly Issue[] | Promise<readonly Issue[]>,
): StandardSchemaV1<unknown, Record<string, never>> {
  const empty = fromJsonSchema(SUBMIT_INPUT)
  const done = (issues: readonly Issue[]): StandardSchemaV1.Result<Record<string, never>> =>
    issues.length > 0
      ? { issues: issues.map((i) => ({ message: i.message, path: i.path === '' ? [] : i.path.split('.') })) }
      : { value: {} }
  return {
    '~standard': {
      version: 1,
      vendor: 'toolmark',
      validate(value) {
        const first = empty['~standard'].validate(value) as StandardSchemaV1.Result<unknown>
        if (first.issues) return first as StandardSchemaV1.FailureResult
        const issues = extra()
        return issues instanceof Promise ? issues.then(done) : done(issues)
      },
      jsonSchema: { input: () => SUBMIT_INPUT, output: () => SUBMIT_INPUT },
    } as StandardSchemaV1<unknown, Record<string, never>>['~standard'],
  }
}

/** Issues of the whole form: its schema (required, types, ...) plus the app's own validation. */
export async function formIssues(
  schema: StandardSchemaV1,
  source: FormSource<FormValues>,
  paths?: readonly string[],
): Promise<Issue[]> {
  // An empty field is absent: optional empty fields pass, required ones are reported missing.
  const values = Object.fromEntries(Object.entries(source.getValues()).filter(([, v]) => !isEmpty(v)))
  let issues = check(schema, values)
  if (paths) issues = issues.filter((i) => paths.some((p) => i.path === p || i.path.startsWith(`${p}.`)))
  const own = (await source.validate?.(paths)) ?? []
  const seen = new Set(issues.map((i) => `${i.path}\u0000${i.message}`))
  for (const i of own) if (!seen.has(`${i.path}\u0000${i.message}`)) issues.push({ ...i })
  return issues
}

/** A deep copy of JSON-like values (so a later mutation of the source cannot change a baseline). */
export function copyValues<V>(values: V): V {
  return values === undefined ? values : (JSON.parse(JSON.stringify(values)) as V)
}

/**
 * The confirmation and run of a form's or a wizard's submit tool, and its baseline: the card shows
 * the diff since the last successful submit, the summary sees the values with sensitive fields
 * `'[redacted]'` (so it cannot show a secret), a changed form is refused stale (`snapshot`), and a
 * successful submit becomes the new baseline.
 */
export function submitHooks<V extends FormValues>(
  source: FormSource<V>,
  summary: FormOptions<V>['summary'],
  label: string,
  patterns: () => SensitivePatterns,
  baseline: FormBaseline<V> = { values: copyValues(source.getValues()) },
): Pick<ToolDefinition, 'summary' | 'changes' | 'snapshot' | 'run'> & {
  baseline(): V
  resetBaseline(): void
} {
  return {
    summary: () =>
      typeof summary === 'function'
        ? summary(redactInput(source.getValues(), patterns()).value as V)
        : (summary ?? `Submit "${label}"`),
    changes: () => diffValues(baseline.values, source.getValues(), patterns()),
    snapshot: () => source.getValues(),
    async run(_input, ctx) {
      const values = copyValues(source.getValues())
      const result = await source.submit(values, ctx)
      if (result === undefined || result.status === 'ok') baseline.values = values
      return result
    },
    baseline: () => copyValues(baseline.values),
    resetBaseline: () => {
      baseline.values = copyValues(source.getValues())
    },
  }
}

/**
 * Where a form's baseline lives (the values its submit diff starts from). Pass one to `formTools` to
 * keep it across re-registrations of the same form: `registerDomForm` does so across re-scans, so a
 * field added later never hides the changes made before it appeared.
 */
export interface FormBaseline<V extends FormValues = FormValues> {
  values: V
}

/**
 * Turns a form into two registry tools: `fill` (sets some or all fields; not consequential;
 * returns the `FieldChange[]` diff) and `submit` (consequential; its confirmation shows the diff
 * since the values were last submitted; an approval after the values changed is refused `stale`).
 * Sensitive fields read `'[redacted]'` in diffs, cards, `state()` and events. Throws
 * `ToolmarkError('schema_conversion_failed')` when the fields schema cannot be used.
 */
export function formTools<V extends FormValues = FormValues>(
  options: FormOptions<V>,
  /** Keep the submit's baseline here (default: a new one from the current values). */
  baseline?: FormBaseline<V>,
): FormTools<V> {
  const { source } = options
  const schema = fieldsSchema(options.fields)
  const whole = compile(schema, 'form')
  const fillSchema = partialSchema(schema)
  const fillInput = compile(fillSchema, 'fill') as StandardSchemaV1<unknown, Partial<V>>
  const sensitive = (): SensitivePatterns => readSensitivePaths(options.sensitivePaths)
  const redacted = (): unknown => redactInput(source.getValues(), sensitive()).value
  const label = options.title ?? options.name
  const {
    baseline: readBaseline,
    resetBaseline,
    ...submitting
  } = submitHooks(source, options.summary, label, sensitive, baseline)
  const anchors =
    options.anchors === undefined
      ? undefined
      : {
          ...(options.anchors.form === undefined ? {} : { tool: options.anchors.form }),
          ...(options.anchors.fields === undefined ? {} : { params: options.anchors.fields }),
        }
  const common = {
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.sensitivePaths === undefined ? {} : { sensitivePaths: options.sensitivePaths }),
    ...(anchors === undefined ? {} : { anchors }),
    state: redacted,
  }
  const fill: FormTools<V>['fill'] = {
    ...common,
    name: 'fill',
    // Only the page's unsaved values change (nothing is saved before submit): runs without asking.
    hints: READ_ONLY,
    description: `Fill the form to: ${options.description}. Sets only the fields given (the others keep their values) and returns the changed fields; it does not submit (use ${options.name}.submit).`,
    input: fillInput,
    async run(input) {
      const before = copyValues(source.getValues())
      await source.setValues(input)
      const changes = diffValues(before, source.getValues(), sensitive())
      const issues = await formIssues(whole, source as FormSource<FormValues>, Object.keys(input))
      return issues.length > 0 ? invalid(issues) : ok(changes)
    },
  }
  const submit: FormTools<V>['submit'] = {
    ...common,
    name: 'submit',
    description: `Submit the form to: ${options.description}. Takes no input: fill it first with ${options.name}.fill. The user confirms the changes before it runs.`,
    input: emptyInputThen(() => formIssues(whole, source as FormSource<FormValues>)),
    hints: options.destructive ? { destructive: true } : { consequential: true },
    ...submitting,
  } as FormTools<V>['submit']
  return { fill, submit, baseline: readBaseline, resetBaseline }
}

/**
 * Registers a form's `fill` and `submit` tools in a new scope named `options.name` (under
 * `target`, a registry or a scope). Disposing the handle removes both and drops the submit's
 * pending confirmations.
 */
export function registerForm<V extends FormValues>(
  target: Toolmark | Scope,
  options: FormOptions<V>,
  registerOptions?: { signal?: AbortSignal },
): FormHandle {
  const tools = formTools(options)
  const scope = target.scope(options.name)
  scope.register(tools.fill)
  scope.register(tools.submit)
  const signal = registerOptions?.signal
  const dispose = (): void => {
    signal?.removeEventListener('abort', dispose)
    scope.dispose()
  }
  if (signal?.aborted) dispose()
  else signal?.addEventListener('abort', dispose, { once: true })
  return { name: scope.path, scope, dispose }
}

export { REDACTED }
