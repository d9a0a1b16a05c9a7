import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { Issue, JsonSchema, RunResult, Scope, ToolContext, Toolmark } from '@toolmark/core'
import { error, invalid, ok, ToolmarkError } from '@toolmark/core'
import { readableToolName } from '@toolmark/core/adapter'
import {
  copyValues,
  type FormBaseline,
  type FormHandle,
  type FormOptions,
  type FormValues,
  formTools,
} from './form.ts'

/** A field the scan left out, and why. */
export interface SkippedField {
  name: string
  reason: 'hidden' | 'disabled' | 'file' | 'csrf' | 'button' | 'unnamed'
}

/** What `scanForm` derives from a `<form>`. */
export interface FormScan {
  /** JSON Schema of the fields (`properties`, `required`). */
  schema: JsonSchema
  /** Field key → the elements behind it (a radio or checkbox group has several). */
  fields: Map<string, FormField[]>
  /** Keys of sensitive fields (passwords, `autocomplete` cc-*, current/new-password, one-time-code). */
  sensitivePaths: string[]
  skipped: SkippedField[]
  /** The declarative WebMCP `toolname` / `tooldescription` attributes, when present. */
  toolName?: string
  toolDescription?: string
}

type FormField = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement

const CSRF =
  /^(_token|_csrf|csrf|csrf_token|csrfmiddlewaretoken|authenticity_token|__RequestVerificationToken|xsrf_token)$/i
const BUTTONS = new Set(['submit', 'button', 'reset', 'image'])
const SENSITIVE_AUTOCOMPLETE = /^(cc-.+|current-password|new-password|one-time-code)$/
const STRING_FORMATS: Record<string, Record<string, string>> = {
  email: { format: 'email' },
  url: { format: 'uri' },
  date: { format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  time: { format: 'time', pattern: '^\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?$' },
  'datetime-local': { pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?$' },
  month: { pattern: '^\\d{4}-\\d{2}$' },
  week: { pattern: '^\\d{4}-W\\d{2}$' },
  color: { pattern: '^#[0-9a-fA-F]{6}$' },
}

/** Attributes a scan reads (not `value`, `checked` or `selected`, which change as the user types). */
const OBSERVED = [
  'name',
  'type',
  'required',
  'disabled',
  'hidden',
  'pattern',
  'min',
  'max',
  'step',
  'minlength',
  'maxlength',
  'multiple',
  'autocomplete',
  'aria-label',
  'aria-labelledby',
  'aria-describedby',
  'title',
  'label',
  'toolname',
  'tooldescription',
  'toolparamdescription',
  'data-toolmark-sensitive',
  'readonly',
]

/** A field's key: its `name`, with `[`, `]` and `.` (not allowed in a path segment) turned into `_`. */
export function fieldKey(name: string): string {
  return name
    .replace(/\[\]$/, '')
    .replace(/[.[\]]+/g, '_')
    .replace(/_+$/, '')
}

/** Longest piece of page text (a label, a description, an option's text) copied into a schema. */
const MAX_TEXT = 200

/** Whitespace collapsed and at most `MAX_TEXT` characters (an ellipsis marks a cut). */
function clip(raw: string): string {
  const t = raw.replace(/\s+/g, ' ').trim()
  return t.length > MAX_TEXT ? `${t.slice(0, MAX_TEXT - 1).trimEnd()}…` : t
}

function text(el: Element | null | undefined): string {
  return clip(el?.textContent ?? '')
}

/** The user-facing label and the description of a field (label, aria-*, title, WebMCP). */
function describe(el: FormField): { title?: string; description?: string } {
  const doc = el.ownerDocument
  const label =
    clip(el.getAttribute('aria-label') ?? '') ||
    (el.getAttribute('aria-labelledby') ?? '')
      .split(/\s+/)
      .map((id) => text(id ? doc.getElementById(id) : null))
      .filter(Boolean)
      .join(' ') ||
    [...(el.labels ?? [])].map((l) => text(l)).join(' ')
  const describedBy = (el.getAttribute('aria-describedby') ?? '')
    .split(/\s+/)
    .map((id) => text(id ? doc.getElementById(id) : null))
    .filter(Boolean)
    .join(' ')
  const explicit = clip(el.getAttribute('toolparamdescription') ?? '')
  const parts = explicit
    ? [explicit]
    : [label, describedBy, clip(el.getAttribute('title') ?? '')].filter((p) => p)
  const out: { title?: string; description?: string } = {}
  if (label) out.title = label
  const description = [...new Set(parts)].join('. ')
  if (description) out.description = description
  return out
}

function isSensitive(el: FormField): boolean {
  if (el instanceof HTMLInputElement && el.type === 'password') return true
  if (el.hasAttribute('data-toolmark-sensitive')) return true
  return (el.getAttribute('autocomplete') ?? '')
    .toLowerCase()
    .split(/\s+/)
    .some((token) => SENSITIVE_AUTOCOMPLETE.test(token))
}

function num(el: Element, attr: string): number | undefined {
  const raw = el.getAttribute(attr)
  if (raw === null || raw.trim() === '') return undefined
  const n = Number(raw)
  return Number.isFinite(n) ? n : undefined
}

function options(el: HTMLSelectElement): { values: string[]; labels: string[] } {
  const values: string[] = []
  const labels: string[] = []
  for (const o of el.options) {
    if (o.disabled) continue
    values.push(o.value)
    labels.push(text(o) || o.value)
  }
  return { values, labels }
}

function withLabels(description: string | undefined, values: string[], labels: string[]): string | undefined {
  if (values.every((v, i) => v === labels[i])) return description
  const list = `Options: ${values.map((v, i) => `${JSON.stringify(v)} (${labels[i]})`).join(', ')}`
  return description ? `${description}. ${list}` : list
}

/** A `pattern` that does not compile is ignored, as browsers ignore it. */
function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u')
    return true
  } catch {
    return false
  }
}

/** The message of a fill that names a `readonly` field (it sets nothing). */
export const FIELD_READ_ONLY = 'This field is read-only'
/** The message of a fill that names a disabled field (it sets nothing). */
export const FIELD_DISABLED = 'This field is disabled'

/** Input types on which `readonly` has effect (browsers ignore it on checkboxes, radios, ranges, colors). */
const NOT_READONLY = new Set(['checkbox', 'radio', 'range', 'color'])

/** The user cannot type into it: `readonly` on a text-like input or a textarea. */
function isReadOnly(el: FormField): boolean {
  if (el instanceof HTMLTextAreaElement) return el.readOnly
  return el instanceof HTMLInputElement && el.readOnly && !NOT_READONLY.has(el.type)
}

/** The schema of one field (or of a radio / checkbox group); `readOnly: true` on a `readonly` field. */
function fieldSchema(els: FormField[]): JsonSchema {
  const schema = fieldSchemaOf(els)
  return els.every(isReadOnly) ? { ...schema, readOnly: true } : schema
}

function fieldSchemaOf(els: FormField[]): JsonSchema {
  const el = els[0] as FormField
  const { title, description } = describe(el)
  const schema: JsonSchema = {}
  if (title) schema.title = title
  if (el instanceof HTMLSelectElement) {
    const { values, labels } = options(el)
    const desc = withLabels(description, values, labels)
    if (desc) schema.description = desc
    if (el.multiple)
      return { ...schema, type: 'array', items: { type: 'string', enum: values }, uniqueItems: true }
    return { ...schema, type: 'string', enum: values }
  }
  if (el instanceof HTMLInputElement && (el.type === 'radio' || el.type === 'checkbox')) {
    if (el.type === 'checkbox' && els.length === 1) {
      if (description) schema.description = description
      return { ...schema, type: 'boolean' }
    }
    const values = els.map((e) => e.value)
    const labels = els.map((e) => describe(e).title ?? e.value)
    // The group's own label (a fieldset legend) when the inputs carry only their option labels.
    const legend = text(el.closest('fieldset')?.querySelector('legend'))
    if (legend) schema.title = legend
    const desc = withLabels(legend || undefined, values, labels)
    if (desc) schema.description = desc
    if (el.type === 'radio') return { ...schema, type: 'string', enum: values }
    return { ...schema, type: 'array', items: { type: 'string', enum: values }, uniqueItems: true }
  }
  if (description) schema.description = description
  const type = el instanceof HTMLInputElement ? el.type : 'text'
  if (type === 'number' || type === 'range') {
    const min = num(el, 'min')
    const max = num(el, 'max')
    const stepAttr = el.getAttribute('step')
    const step = stepAttr === 'any' ? undefined : (num(el, 'step') ?? 1)
    const integral = step !== undefined && Number.isInteger(step) && Number.isInteger(min ?? 0)
    schema.type = integral ? 'integer' : 'number'
    if (min !== undefined) schema.minimum = min
    if (max !== undefined) schema.maximum = max
    if (step !== undefined && step !== 1 && (min ?? 0) === 0) schema.multipleOf = step
    return schema
  }
  schema.type = 'string'
  Object.assign(schema, STRING_FORMATS[type])
  const pattern = el.getAttribute('pattern')
  if (pattern && el instanceof HTMLInputElement && compiles(`^(?:${pattern})$`))
    schema.pattern = `^(?:${pattern})$`
  const minLength = num(el, 'minlength')
  const maxLength = num(el, 'maxlength')
  if (minLength !== undefined && minLength >= 0) schema.minLength = minLength
  if (maxLength !== undefined && maxLength >= 0) schema.maxLength = maxLength
  return schema
}

/**
 * Derives the input schema of a `<form>` from its fields: input types (`email`, `url`, `number`,
 * `date`, ...; checkboxes as booleans or a group's array, radio groups and `select` as enums with
 * their option labels, `select[multiple]` as arrays), `required`, `pattern`, `min`/`max`/`step`,
 * `minlength`/`maxlength`, and `<label>`, `aria-label(ledby)`, `aria-describedby`, `title` or the
 * WebMCP `toolparamdescription` as descriptions. Hidden, disabled, `type=file` (not supported:
 * files cannot travel as JSON), button and CSRF token fields are skipped and listed in `skipped`.
 */
export function scanForm(form: HTMLFormElement): FormScan {
  const groups = new Map<string, FormField[]>()
  const skipped: SkippedField[] = []
  const skip = (name: string, reason: SkippedField['reason']): void => {
    skipped.push({ name, reason })
  }
  for (const el of form.elements) {
    if (
      !(
        el instanceof HTMLInputElement ||
        el instanceof HTMLSelectElement ||
        el instanceof HTMLTextAreaElement
      )
    )
      continue
    const name = el.name
    const type = el instanceof HTMLInputElement ? el.type : ''
    if (BUTTONS.has(type)) continue
    if (!name) {
      skip('', 'unnamed')
      continue
    }
    if (CSRF.test(name)) skip(name, 'csrf')
    else if (type === 'hidden' || el.hidden || el.closest('[hidden]')) skip(name, 'hidden')
    else if (el.matches(':disabled')) skip(name, 'disabled')
    else if (type === 'file') skip(name, 'file')
    else {
      const key = fieldKey(name)
      const group = groups.get(key)
      if (group) group.push(el)
      else groups.set(key, [el])
    }
  }
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  const sensitivePaths: string[] = []
  for (const [key, els] of groups) {
    properties[key] = fieldSchema(els)
    if (els.some((e) => e.required)) required.push(key)
    if (els.some(isSensitive)) sensitivePaths.push(key)
  }
  const schema: JsonSchema = { type: 'object', properties }
  if (required.length > 0) schema.required = required
  const scan: FormScan = { schema, fields: groups, sensitivePaths, skipped }
  const toolName = form.getAttribute('toolname')?.trim()
  const toolDescription = form.getAttribute('tooldescription')?.trim()
  if (toolName) scan.toolName = toolName
  if (toolDescription) scan.toolDescription = toolDescription
  return scan
}

/** Reads a field's (or group's) current value. Empty number inputs and unchecked radios are `undefined`. */
function readField(els: FormField[]): unknown {
  const el = els[0] as FormField
  if (el instanceof HTMLSelectElement) {
    return el.multiple ? [...el.selectedOptions].map((o) => o.value) : el.value
  }
  if (el instanceof HTMLInputElement) {
    if (el.type === 'checkbox') {
      return els.length === 1
        ? el.checked
        : els.filter((e) => (e as HTMLInputElement).checked).map((e) => e.value)
    }
    if (el.type === 'radio') return els.find((e) => (e as HTMLInputElement).checked)?.value
    if (el.type === 'number' || el.type === 'range') return el.value === '' ? undefined : Number(el.value)
  }
  return el.value
}

/** The native property setter, bypassing the own-property setters frameworks install on elements. */
function nativeSet(el: Element, prop: 'value' | 'checked' | 'selected', value: unknown): void {
  let proto = Object.getPrototypeOf(el)
  while (proto) {
    const d = Object.getOwnPropertyDescriptor(proto, prop)
    if (d?.set) {
      d.set.call(el, value)
      return
    }
    proto = Object.getPrototypeOf(proto)
  }
  ;(el as unknown as Record<string, unknown>)[prop] = value
}

function fire(el: Element): void {
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }))
  el.dispatchEvent(new Event('change', { bubbles: true }))
}

/** Toggles a checkbox or radio like a user click, so React's and Vue's handlers see it. */
function clickTo(el: HTMLInputElement, checked: boolean): void {
  if (el.checked === checked) return
  el.click()
  if (el.checked !== checked) {
    // The click was cancelled by a handler: set it directly and announce it.
    nativeSet(el, 'checked', checked)
    fire(el)
  }
}

/**
 * Sets a field the way typing would: the native setter plus `input`/`change` events (checkboxes
 * and radios by a click), so controlled components (React, Vue `v-model`) update their state.
 */
function writeField(els: FormField[], value: unknown): void {
  const el = els[0] as FormField
  if (el instanceof HTMLSelectElement) {
    if (el.multiple) {
      const wanted = new Set((Array.isArray(value) ? value : []).map(String))
      for (const o of el.options) nativeSet(o, 'selected', wanted.has(o.value))
    } else nativeSet(el, 'value', value == null ? '' : String(value))
    fire(el)
    return
  }
  if (el instanceof HTMLInputElement && el.type === 'checkbox') {
    if (els.length === 1) clickTo(el, value === true)
    else {
      const wanted = new Set((Array.isArray(value) ? value : []).map(String))
      for (const e of els) clickTo(e as HTMLInputElement, wanted.has(e.value))
    }
    return
  }
  if (el instanceof HTMLInputElement && el.type === 'radio') {
    const target = els.find((e) => e.value === String(value)) as HTMLInputElement | undefined
    if (target) clickTo(target, true)
    else
      for (const e of els)
        if ((e as HTMLInputElement).checked) {
          nativeSet(e, 'checked', false)
          fire(e)
        }
    return
  }
  nativeSet(el, 'value', value == null ? '' : String(value))
  fire(el)
}

/** Longest form label used as a tool title. */
const MAX_TITLE = 80

/**
 * The form's own label, for the tools' title (what a card is headed with): `aria-label`,
 * `aria-labelledby`, `title`, else its first `legend` or heading; whitespace collapsed, at most 80
 * characters.
 */
function formLabel(form: HTMLFormElement): string | undefined {
  const doc = form.ownerDocument
  const label =
    form.getAttribute('aria-label')?.replace(/\s+/g, ' ').trim() ||
    (form.getAttribute('aria-labelledby') ?? '')
      .split(/\s+/)
      .map((id) => text(id ? doc.getElementById(id) : null))
      .filter(Boolean)
      .join(' ') ||
    form.getAttribute('title')?.replace(/\s+/g, ' ').trim() ||
    text(form.querySelector('legend, h1, h2, h3, h4, h5, h6'))
  if (!label) return undefined
  return label.length > MAX_TITLE ? `${label.slice(0, MAX_TITLE - 1).trimEnd()}…` : label
}

/** Options of `registerDomForm`. */
export interface DomFormOptions {
  /** Scope name of the tools; default the form's `toolname`, `name` or `id`. */
  name?: string
  /** LLM-facing; default the form's `tooldescription`. */
  description?: string
  /**
   * User-facing: the tools' title, which heads the confirmation card. Default: the form's label
   * (`aria-label`, `aria-labelledby`, `title`, its first `legend` or heading), else the name made
   * readable (`challengeForm` → "Challenge form").
   */
  title?: string
  /** More sensitive field keys, on top of what the scan finds. */
  sensitivePaths?: readonly string[]
  /** Extra app validation, added to the browser's constraint validation. */
  validate?: (values: FormValues, paths?: readonly string[]) => readonly Issue[] | Promise<readonly Issue[]>
  /**
   * Submits after approval. Default: `form.requestSubmit()` (the form's own submit handler runs)
   * and `ok()`. Return the server's answer here to give the agent more than `ok`.
   */
  submit?: (values: FormValues, ctx: ToolContext) => RunResult | undefined | Promise<RunResult | undefined>
  summary?: FormOptions['summary']
  destructive?: boolean
}

/** What `registerDomForm` returns. */
export interface DomFormHandle extends FormHandle {
  /** The latest scan. */
  readonly current: FormScan
  /** Scans again now; re-registers (one revision) when the fields changed. */
  rescan(): void
}

/** Why a fill may not set these elements (disabled or `readonly`), or undefined when it may. */
function lockedIssue(els: FormField[]): string | undefined {
  if (els.every((e) => e.matches(':disabled'))) return FIELD_DISABLED
  if (els.every(isReadOnly)) return FIELD_READ_ONLY
  return undefined
}

/**
 * The fields of a fill input that the form does not let anyone type into: `readonly` ones, and
 * disabled ones (left out of the schema, so named here rather than as unknown properties).
 */
function lockedFields(input: unknown, scan: FormScan): Issue[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return []
  const issues: Issue[] = []
  for (const key of Object.keys(input)) {
    const els = scan.fields.get(key)
    const why = els
      ? lockedIssue(els)
      : scan.skipped.some((f) => f.reason === 'disabled' && fieldKey(f.name) === key)
        ? FIELD_DISABLED
        : undefined
    if (why) issues.push({ path: key, message: why })
  }
  return issues
}

/** The fill's validator, refusing locked fields first (with their own message), then the schema. */
function refuseLocked<T>(
  schema: StandardSchemaV1<unknown, T>,
  scan: () => FormScan,
): StandardSchemaV1<unknown, T> {
  const std = schema['~standard']
  return {
    '~standard': {
      ...std,
      validate(value) {
        const issues = lockedFields(value, scan())
        if (issues.length > 0) return { issues: issues.map((i) => ({ message: i.message, path: [i.path] })) }
        return std.validate(value)
      },
    },
  }
}

/** A form source over a scanned `<form>`. */
export function domSource(
  form: HTMLFormElement,
  scan: () => FormScan,
  options: Pick<DomFormOptions, 'validate' | 'submit'> = {},
): FormOptions['source'] {
  return {
    getValues() {
      const values: FormValues = {}
      for (const [key, els] of scan().fields) values[key] = readField(els)
      return values
    },
    setValues(values) {
      const fields = scan().fields
      for (const [key, value] of Object.entries(values)) {
        const els = fields.get(key)
        // Never write what the user could not type: a field locked since the fill was validated.
        if (els && lockedIssue(els) === undefined) writeField(els, value)
      }
    },
    async validate(paths) {
      const issues: Issue[] = []
      for (const [key, els] of scan().fields) {
        if (paths && !paths.includes(key)) continue
        const bad = els.find((e) => e.willValidate && !e.validity.valid)
        if (bad) issues.push({ path: key, message: bad.validationMessage || 'Invalid value' })
      }
      if (options.validate) {
        const own = await options.validate(this.getValues(), paths)
        // A fill answers for the fields it touched only, whatever the app's rule returns.
        const touched = (i: Issue): boolean =>
          !paths || paths.some((p) => i.path === p || i.path.startsWith(`${p}.`))
        issues.push(...own.filter(touched))
      }
      return issues
    },
    async submit(values, ctx) {
      if (options.submit) return options.submit(values, ctx)
      return requestSubmit(form, scan().fields)
    },
  }
}

/** The message of a default DOM submit that never reached the form's submit handler. */
export const FORM_NOT_SUBMITTED = 'The form was not submitted'

/**
 * The `submit` event of a submit the agent asked for (and the user approved): the app's handler
 * reports what it did with `respondWith`, as WebMCP's declarative forms do. Get it with `agentSubmit`.
 */
export interface AgentSubmitEvent extends SubmitEvent {
  /** Always true: this submit comes from an agent's `<name>.submit`. */
  readonly agentInvoked: true
  /**
   * Answers the agent's submit with the app's outcome: `ok(...)`, `invalid(issues)` (the app's
   * validation errors at field paths), `error(...)`; `undefined` is `ok()`. A rejected promise
   * answers `error "Tool failed"`. Call it at most once, during the event (a second call throws an
   * `InvalidStateError`).
   */
  respondWith(result: RunResult | undefined | Promise<RunResult | undefined>): void
}

/**
 * The submit event as an `AgentSubmitEvent` when an agent's approved submit caused it, else
 * undefined (the user clicked Save). In React pass `event.nativeEvent`.
 */
export function agentSubmit(event: Event): AgentSubmitEvent | undefined {
  return (event as Partial<AgentSubmitEvent>).agentInvoked === true ? (event as AgentSubmitEvent) : undefined
}

/**
 * The default DOM submit: `form.requestSubmit()`, so the browser's validation and the app's own
 * submit handler run as for a click, answered with what happened: the handler's `respondWith`
 * result; `invalid` at the fields when the browser's validation stopped it; a handler that threw
 * rejects (`error "Tool failed"`); a submit that never reached the handler is `error
 * "The form was not submitted"`; otherwise `ok()`.
 */
async function requestSubmit(form: HTMLFormElement, fields: Map<string, FormField[]>): Promise<RunResult> {
  let reached = false
  let response: Promise<RunResult | undefined> | undefined
  let failure: { error: unknown } | undefined
  const view = form.ownerDocument.defaultView
  const onSubmit = (event: Event): void => {
    reached = true
    Object.defineProperties(event, {
      agentInvoked: { value: true, configurable: true },
      respondWith: {
        configurable: true,
        value: (result: RunResult | undefined | Promise<RunResult | undefined>): void => {
          if (response !== undefined)
            throw new DOMException('respondWith was already called for this submit', 'InvalidStateError')
          response = Promise.resolve(result)
        },
      },
    })
  }
  // A listener that throws is reported to the window, not to the dispatcher.
  const onError = (event: ErrorEvent): void => {
    failure ??= { error: event.error ?? event.message }
  }
  form.addEventListener('submit', onSubmit, { capture: true })
  view?.addEventListener('error', onError)
  try {
    form.requestSubmit()
  } finally {
    form.removeEventListener('submit', onSubmit, { capture: true })
    view?.removeEventListener('error', onError)
  }
  if (failure) throw failure.error
  if (!reached) {
    const issues: Issue[] = []
    for (const [key, els] of fields) {
      const bad = els.find((e) => e.willValidate && !e.validity.valid)
      if (bad) issues.push({ path: key, message: bad.validationMessage || 'Invalid value' })
    }
    return issues.length > 0 ? invalid(issues) : error(FORM_NOT_SUBMITTED)
  }
  const result = response === undefined ? undefined : await response
  return result ?? ok()
}

/**
 * Makes a `<form>` agent-ready: scans it (`scanForm`), registers `<name>.fill` / `<name>.submit`
 * over the live DOM, and re-scans when its fields change (a `MutationObserver`), which is a
 * revision. Reads the WebMCP `toolname` / `tooldescription` / `toolparamdescription` attributes.
 * Throws `ToolmarkError('invalid_name')` when neither options nor the form give a name or a
 * description.
 */
export function registerDomForm(
  target: Toolmark | Scope,
  form: HTMLFormElement,
  options: DomFormOptions = {},
): DomFormHandle {
  // Once sensitive, a field stays sensitive for the life of the form, by key and by element: a
  // "show password" toggle (type=password → text) or a re-rendered input never un-redacts it.
  const sensitiveKeys = new Set<string>()
  const sensitiveElements = new WeakSet<Element>()
  const sticky = (s: FormScan): FormScan => {
    for (const key of s.sensitivePaths) sensitiveKeys.add(key)
    for (const [key, els] of s.fields) {
      if (els.some((e) => sensitiveElements.has(e))) sensitiveKeys.add(key)
      if (sensitiveKeys.has(key)) for (const e of els) sensitiveElements.add(e)
    }
    // Present fields in scan order, then those gone for now (a baseline may still hold their values).
    const present = [...s.fields.keys()].filter((k) => sensitiveKeys.has(k))
    const gone = [...sensitiveKeys].filter((k) => !s.fields.has(k))
    return { ...s, sensitivePaths: [...present, ...gone] }
  }
  let scan = sticky(scanForm(form))
  const name = options.name ?? scan.toolName ?? (form.getAttribute('name') || form.id)
  const description = options.description ?? scan.toolDescription
  if (!name || !description) {
    throw new ToolmarkError(
      'invalid_name',
      'registerDomForm needs a name and a description (options, or the toolname/tooldescription attributes)',
    )
  }
  const title = options.title ?? formLabel(form) ?? readableToolName(name)
  const source = domSource(form, () => scan, options)
  // One baseline for the life of the form, not one per re-scan: it moves only after a successful
  // submit. A field first seen in a later scan joins it with the value it had when it appeared.
  const baseline: FormBaseline = { values: copyValues(source.getValues()) }
  const known = new Set(scan.fields.keys())
  const adopt = (): void => {
    const now = source.getValues()
    for (const k of scan.fields.keys()) {
      if (known.has(k)) continue
      known.add(k)
      if (now[k] !== undefined) baseline.values[k] = copyValues(now[k])
    }
  }
  let key = ''
  let inner: FormHandle | undefined
  const register = (): void => {
    const sensitive = [...new Set([...scan.sensitivePaths, ...(options.sensitivePaths ?? [])])]
    const fields: Record<string, () => Element | undefined> = {}
    for (const [k, els] of scan.fields) fields[k] = () => els[0]
    const tools = formTools(
      {
        name,
        description,
        fields: scan.schema,
        source,
        sensitivePaths: sensitive,
        anchors: { form: () => form, fields },
        title,
        ...(options.summary === undefined ? {} : { summary: options.summary }),
        ...(options.destructive === undefined ? {} : { destructive: options.destructive }),
      },
      baseline,
    )
    // Built before the old tools go: a scan whose schema cannot be used keeps them.
    inner?.dispose()
    const scope = target.scope(name)
    // Their schema (labels, descriptions, option text) and their results (the form's values) are
    // read from the page: untrusted content, which agents wrap as data, never instructions.
    scope.register({
      ...tools.fill,
      ...(tools.fill.input === undefined ? {} : { input: refuseLocked(tools.fill.input, () => scan) }),
      hints: { ...tools.fill.hints, untrustedContent: true },
    })
    scope.register({ ...tools.submit, hints: { ...tools.submit.hints, untrustedContent: true } })
    inner = { name: scope.path, scope, dispose: () => scope.dispose() }
  }
  const fingerprint = (s: FormScan): string =>
    JSON.stringify([s.schema, s.sensitivePaths, [...s.fields.entries()].map(([k, els]) => [k, els.length])])
  const rescan = (): void => {
    if (disposed) return
    let next: FormScan
    try {
      next = sticky(scanForm(form))
    } catch {
      return // a field that cannot be scanned right now: keep the tools of the last good scan
    }
    const nextKey = fingerprint(next)
    const elementsChanged = [...next.fields].some(([k, els]) =>
      scan.fields.get(k)?.some((e, i) => e !== els[i]),
    )
    scan = next
    adopt()
    if (nextKey === key && !elementsChanged) return
    key = nextKey
    try {
      register()
    } catch {
      // Nothing registrable in this state of the form: the last good tools stay until the next change.
    }
  }
  let disposed = false
  key = fingerprint(scan)
  register()
  let queued = false
  const observer = new MutationObserver(() => {
    if (queued) return
    queued = true
    queueMicrotask(() => {
      queued = false
      rescan()
    })
  })
  observer.observe(form, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
    attributeFilter: OBSERVED,
  })
  return {
    get name() {
      return inner?.name ?? name
    },
    get scope() {
      return (inner as FormHandle).scope
    },
    get current() {
      return scan
    },
    rescan,
    dispose() {
      if (disposed) return
      disposed = true
      observer.disconnect()
      inner?.dispose()
    },
  }
}
