'use client'
// An Inertia `useForm()` (React) as `<name>.fill` / `<name>.submit` tools.
import type { InertiaFormProps } from '@inertiajs/react'
import type { FormValues } from '@toolmark/forms'
import { registerForm } from '@toolmark/forms'
import { useToolmark } from '@toolmark/react'
import { useEffect, useInsertionEffect, useRef } from 'react'
import { formOptionsOf, type InertiaFormToolsOptions, inertiaFormSource } from '../forms/source.ts'

export {
  FORM_BUSY,
  FORM_CANCELLED,
  FORM_NOT_SUBMITTED,
  type InertiaFormToolsOptions,
  inertiaIssues,
} from '../forms/source.ts'

/**
 * Registers an Inertia `useForm()` as `<name>.fill` (`setData` per field; clears those fields'
 * errors) and `<name>.submit` (consequential; after approval runs `form.submit(method, url)` and
 * answers when Inertia finishes the visit: the server's validation errors come back as `invalid`
 * issues at their field paths, and a submit while `processing` is `refused busy`), for as long as
 * the component is mounted. The latest render's form and options are used.
 */
export function useInertiaFormTools<V extends FormValues>(
  form: InertiaFormProps<V>,
  options: InertiaFormToolsOptions<V>,
): void {
  const tm = useToolmark()
  const latest = useRef({ form, options, data: form.data })
  useInsertionEffect(() => {
    latest.current = { form, options, data: form.data }
  })
  const { name, scope } = options
  useEffect(() => {
    const now = latest.current
    const source = inertiaFormSource<V>(
      () => latest.current.form,
      // `form.data` is this render's; a fill's values are read back before React renders again.
      () => latest.current.data,
      (values) => {
        latest.current.data = { ...latest.current.data, ...values }
        for (const [key, value] of Object.entries(values))
          latest.current.form.setData(key as never, value as never)
      },
      () => latest.current.options,
    )
    const handle = registerForm(scope ?? tm, { ...formOptionsOf(now.options, source), name })
    return () => handle.dispose()
  }, [tm, name, scope])
}
