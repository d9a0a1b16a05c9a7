'use client'
// "@toolmark/react/forms": a react-hook-form form as `<name>.fill` / `<name>.submit` tools.
import type { AnySchema, JsonSchema, RunResult, Scope, ToolContext } from '@toolmark/core'
import { invalid } from '@toolmark/core'
import { type FormOptions, type FormSource, registerForm } from '@toolmark/forms'
import { useEffect, useInsertionEffect, useRef } from 'react'
import type { FieldErrors, FieldValues, Path, PathValue, UseFormReturn } from 'react-hook-form'
import { useToolmark } from '../context.ts'

/** Options of `useFormTools`. */
export interface UseFormToolsOptions<V extends FieldValues> {
  /** Scope name: `signup` gives `signup.fill` and `signup.submit`. */
  name: string
  /** LLM-facing: what submitting does. */
  description: string
  title?: string
  /** The fields as JSON Schema, or a Standard Schema that can emit one (zod 4, ArkType). */
  fields: JsonSchema | AnySchema
  /** Runs after approval with the validated values (through `handleSubmit`). `undefined` means `ok()`. */
  onSubmit: (values: V, ctx: ToolContext) => RunResult | undefined | Promise<RunResult | undefined>
  sensitivePaths?: readonly string[]
  summary?: FormOptions<V>['summary']
  destructive?: boolean
  /** Parent scope (default: the registry root). */
  scope?: Scope
}

/** react-hook-form's errors (nested, `{ message }` at each field) as issues at dot paths. */
export function rhfIssues(errors: FieldErrors, prefix = ''): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = []
  for (const [key, node] of Object.entries(errors ?? {})) {
    if (node === undefined || node === null || key === 'root' || key === 'ref') continue
    const path = prefix === '' ? key : `${prefix}.${key}`
    const message = (node as { message?: unknown }).message
    if (typeof message === 'string' && typeof (node as { type?: unknown }).type !== 'object') {
      out.push({ path, message: message || 'Invalid value' })
    } else if (typeof node === 'object') out.push(...rhfIssues(node as FieldErrors, path))
  }
  return out
}

/**
 * Registers a react-hook-form form as `<name>.fill` (sets fields with `setValue(..., {
 * shouldValidate, shouldDirty })`, answers `trigger()`'s errors as `invalid` issues) and
 * `<name>.submit` (consequential; after approval runs `handleSubmit(onSubmit)`), for as long as
 * the component is mounted. The latest render's options are used.
 */
export function useFormTools<V extends FieldValues>(
  form: UseFormReturn<V>,
  options: UseFormToolsOptions<V>,
): void {
  const tm = useToolmark()
  const latest = useRef({ form, options })
  useInsertionEffect(() => {
    latest.current = { form, options }
  })
  const { name, scope } = options
  useEffect(() => {
    const f = () => latest.current.form
    const source: FormSource<V> = {
      getValues: () => f().getValues(),
      setValues(values) {
        for (const [key, value] of Object.entries(values)) {
          f().setValue(key as Path<V>, value as PathValue<V, Path<V>>, {
            shouldValidate: true,
            shouldDirty: true,
          })
        }
      },
      async validate(paths) {
        await f().trigger(paths ? (paths as Path<V>[]) : undefined)
        const issues = rhfIssues(f().formState.errors)
        return paths
          ? issues.filter((i) => paths.some((p) => i.path === p || i.path.startsWith(`${p}.`)))
          : issues
      },
      submit: (_values, ctx) =>
        new Promise<RunResult | undefined>((resolve, reject) => {
          f().handleSubmit(
            async (values) => {
              try {
                resolve(await latest.current.options.onSubmit(values as V, ctx))
              } catch (err) {
                reject(err)
              }
            },
            (errors) => resolve(invalid(rhfIssues(errors))),
          )()
        }),
    }
    const o = latest.current.options
    const handle = registerForm(scope ?? tm, {
      name,
      description: o.description,
      fields: o.fields,
      source,
      ...(o.title === undefined ? {} : { title: o.title }),
      ...(o.sensitivePaths === undefined ? {} : { sensitivePaths: o.sensitivePaths }),
      ...(o.summary === undefined ? {} : { summary: o.summary }),
      ...(o.destructive === undefined ? {} : { destructive: o.destructive }),
    })
    return () => handle.dispose()
  }, [tm, name, scope])
}
