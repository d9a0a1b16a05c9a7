// The Inertia `useForm` binding's framework-free part, shared by the React and Vue hooks.
import type { Page, UrlMethodPair, UseFormSubmitOptions } from '@inertiajs/core'
import {
  type AnySchema,
  cancelled,
  error,
  type Issue,
  invalid,
  type JsonSchema,
  type RunResult,
  refused,
  type Scope,
} from '@toolmark/core'
import type { FormOptions, FormSource, FormValues } from '@toolmark/forms'

/** The message of the `refused busy` a submit answers while the form is already being submitted. */
export const FORM_BUSY = 'The form is already being submitted'
/** The message of the `refused not_allowed` a submit answers when a `before` listener cancelled the visit. */
export const FORM_CANCELLED = 'The page cancelled the submit'
/** The message of the `error` a submit answers when the visit finished without success or errors. */
export const FORM_NOT_SUBMITTED = 'The form was not submitted'

/** Options of `useInertiaFormTools` (React and Vue). */
export interface InertiaFormToolsOptions<V extends FormValues> {
  /** Scope name: `challenge` gives `challenge.fill` and `challenge.submit`. */
  name: string
  /** LLM-facing: what submitting does. */
  description: string
  title?: string
  /** The fields as JSON Schema, or a Standard Schema that can emit one (zod 4, ArkType). */
  fields: JsonSchema | AnySchema
  /** Where the submit goes: `{ method, url }` (a Wayfinder route is one), or a function of the values. */
  action: UrlMethodPair | ((values: V) => UrlMethodPair)
  /** Visit options for `form.submit` (`preserveScroll`, `only`, `headers`, ...); the binding owns the callbacks. */
  visit?: Omit<UseFormSubmitOptions, 'onBefore' | 'onSuccess' | 'onError' | 'onCancel' | 'onFinish'>
  /** The submit's result after a successful visit (`undefined` means `ok()`). */
  onSuccess?: (page: Page, values: V) => RunResult | undefined | Promise<RunResult | undefined>
  sensitivePaths?: readonly string[]
  summary?: FormOptions<V>['summary']
  destructive?: boolean
  /** Parent scope (default: the registry root). */
  scope?: Scope
}

/** What the binding needs of a React or Vue `useForm()` object. */
export interface InertiaFormLike {
  readonly processing: boolean
  clearErrors(...fields: never[]): unknown
  submit(method: UrlMethodPair['method'], url: string, options: UseFormSubmitOptions): void
  cancel(): void
}

/**
 * Inertia's errors (`{ 'field.path': message }`, a message list, or nested under an error bag) as
 * issues at dot paths.
 */
export function inertiaIssues(errors: unknown, prefix = ''): Issue[] {
  const out: Issue[] = []
  for (const [key, value] of Object.entries((errors ?? {}) as Record<string, unknown>)) {
    const path = prefix === '' ? key : `${prefix}.${key}`
    const message = Array.isArray(value) ? value[0] : value
    if (typeof message === 'string') out.push({ path, message: message || 'Invalid value' })
    else if (typeof value === 'object' && value !== null) out.push(...inertiaIssues(value, path))
  }
  return out
}

/**
 * The form source of an Inertia form: `read`/`write` reach its data; `submit` runs
 * `form.submit(method, url)` and resolves when Inertia finishes the visit: `ok()` (or `onSuccess`'s
 * result) on success, `invalid` with the server's errors at their field paths (a Laravel 422), and
 * `refused busy` while the form is processing (a submit by the user or an earlier call still runs),
 * `refused not_allowed` when an app `before` listener cancels the visit.
 */
export function inertiaFormSource<V extends FormValues>(
  form: () => InertiaFormLike,
  read: () => V,
  write: (values: Partial<V>) => void,
  options: () => InertiaFormToolsOptions<V>,
): FormSource<V> {
  let running = false
  return {
    getValues: read,
    setValues(values) {
      write(values)
      // The server's messages were about the old values: a filled field drops its error.
      form().clearErrors(...(Object.keys(values) as never[]))
    },
    submit(values, ctx) {
      const f = form()
      if (running || f.processing) return refused('busy', FORM_BUSY)
      const o = options()
      const { method, url } = typeof o.action === 'function' ? o.action(values) : o.action
      running = true
      return new Promise((resolve) => {
        let settled = false
        let result: RunResult | undefined | Promise<RunResult | undefined> = error(FORM_NOT_SUBMITTED)
        const settle = (r: typeof result): void => {
          if (settled) return
          settled = true
          running = false
          ctx.signal.removeEventListener('abort', abort)
          resolve(r)
        }
        const abort = (): void => f.cancel()
        ctx.signal.addEventListener('abort', abort, { once: true })
        let passed = false
        f.submit(method, url, {
          ...o.visit,
          onBefore: () => {
            // Added last, this listener sees whether an app `before` listener cancelled the visit.
            document.addEventListener(
              'inertia:before',
              (event) => {
                passed = !event.defaultPrevented
              },
              { once: true },
            )
            return undefined
          },
          onSuccess: (page) => {
            result = o.onSuccess ? Promise.resolve().then(() => o.onSuccess?.(page, values)) : undefined
          },
          onError: (errors) => {
            result = invalid(inertiaIssues(errors))
          },
          onCancel: () => {
            result = ctx.signal.aborted ? cancelled('signal') : error(FORM_NOT_SUBMITTED)
          },
          onFinish: () => settle(result),
        })
        // The visit starts synchronously; a cancelled `before` means no request and no onFinish.
        if (!passed) settle(refused('not_allowed', FORM_CANCELLED))
      })
    },
  }
}

/** The `registerForm` options of the binding (the optional ones only when given). */
export function formOptionsOf<V extends FormValues>(
  o: InertiaFormToolsOptions<V>,
  source: FormSource<V>,
): FormOptions<V> {
  return {
    name: o.name,
    description: o.description,
    fields: o.fields,
    source,
    ...(o.title === undefined ? {} : { title: o.title }),
    ...(o.sensitivePaths === undefined ? {} : { sensitivePaths: o.sensitivePaths }),
    ...(o.summary === undefined ? {} : { summary: o.summary }),
    ...(o.destructive === undefined ? {} : { destructive: o.destructive }),
  }
}
