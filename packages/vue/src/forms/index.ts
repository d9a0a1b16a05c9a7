// "@toolmark/vue/forms": a VeeValidate form as `<name>.fill` / `<name>.submit` tools.
import type { AnySchema, JsonSchema, RunResult, Scope, ToolContext } from '@toolmark/core'
import { invalid } from '@toolmark/core'
import { type FormOptions, type FormSource, registerForm } from '@toolmark/forms'
import type { FormContext, GenericObject } from 'vee-validate'
import { onScopeDispose, toRaw } from 'vue'
import { useToolmark } from '../injection.ts'

/** Options of `useFormTools`. */
export interface UseFormToolsOptions<V extends GenericObject> {
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

/** VeeValidate's `{ path: message }` errors as issues. */
function issuesOf(errors: Partial<Record<string, string | undefined>>): { path: string; message: string }[] {
  return Object.entries(errors)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([path, message]) => ({ path, message }))
}

/**
 * Registers a VeeValidate form (`useForm()`'s context) as `<name>.fill` (`setFieldValue`, then
 * `validateField` for the filled fields: errors come back as `invalid` issues) and `<name>.submit`
 * (consequential; after approval runs `handleSubmit(onSubmit)`), until the component's scope ends.
 * Call it in `setup()`.
 */
export function useFormTools<V extends GenericObject>(
  form: FormContext<V>,
  options: UseFormToolsOptions<V>,
): void {
  const tm = useToolmark()
  const source: FormSource<V> = {
    getValues: () => ({ ...toRaw(form.values) }) as V,
    setValues(values) {
      for (const [key, value] of Object.entries(values))
        form.setFieldValue(key as never, value as never, false)
    },
    async validate(paths) {
      if (!paths) return issuesOf((await form.validate()).errors)
      const issues: { path: string; message: string }[] = []
      for (const path of paths) {
        const r = await form.validateField(path as never)
        if (!r.valid) issues.push({ path, message: r.errors[0] ?? 'Invalid value' })
      }
      return issues
    },
    submit: (_values, ctx) =>
      new Promise<RunResult | undefined>((resolve, reject) => {
        form
          .handleSubmit(
            async (values) => {
              try {
                resolve(await options.onSubmit(values as V, ctx))
              } catch (err) {
                reject(err)
              }
            },
            ({ errors }) => resolve(invalid(issuesOf(errors))),
          )()
          .catch(reject)
      }),
  }
  const handle = registerForm(options.scope ?? tm, {
    name: options.name,
    description: options.description,
    fields: options.fields,
    source,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.sensitivePaths === undefined ? {} : { sensitivePaths: options.sensitivePaths }),
    ...(options.summary === undefined ? {} : { summary: options.summary }),
    ...(options.destructive === undefined ? {} : { destructive: options.destructive }),
  })
  onScopeDispose(() => handle.dispose())
}
