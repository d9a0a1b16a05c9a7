// An Inertia `useForm()` (Vue) as `<name>.fill` / `<name>.submit` tools.
import type { InertiaForm } from '@inertiajs/vue3'
import type { FormValues } from '@toolmark/forms'
import { registerForm } from '@toolmark/forms'
import { useToolmark } from '@toolmark/vue'
import { onScopeDispose, toRaw } from 'vue'
import { formOptionsOf, type InertiaFormToolsOptions, inertiaFormSource } from '../forms/source.ts'

export {
  FORM_BUSY,
  FORM_CANCELLED,
  FORM_NOT_SUBMITTED,
  type InertiaFormToolsOptions,
  inertiaIssues,
} from '../forms/source.ts'

/**
 * Registers an Inertia `useForm()` (Vue) as `<name>.fill` (assigns the fields; clears their errors)
 * and `<name>.submit` (consequential; after approval runs `form.submit(method, url)` and answers
 * when Inertia finishes the visit: the server's validation errors come back as `invalid` issues at
 * their field paths, and a submit while `form.processing` is `refused busy`), until the component's
 * scope ends. Call it in `setup()`.
 */
export function useInertiaFormTools<V extends FormValues>(
  form: InertiaForm<V>,
  options: InertiaFormToolsOptions<V>,
): void {
  const tm = useToolmark()
  const source = inertiaFormSource<V>(
    () => form,
    () => ({ ...toRaw(form.data()) }) as V,
    (values) => Object.assign(form, values),
    () => options,
  )
  const handle = registerForm(options.scope ?? tm, formOptionsOf(options, source))
  onScopeDispose(() => handle.dispose())
}
