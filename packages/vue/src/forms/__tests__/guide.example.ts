import { ok } from '@toolmark/core'
import { useFormTools } from '@toolmark/vue/forms'
import { useForm } from 'vee-validate'

// In a component's setup():
export function setup() {
  const form = useForm({
    initialValues: { email: '', password: '' },
    validationSchema: { email: (v: string) => v.includes('@') || 'Enter an email' },
  })
  useFormTools(form, {
    name: 'signup',
    description: 'create an account',
    fields: { type: 'object', properties: { email: { type: 'string' }, password: { type: 'string' } } },
    sensitivePaths: ['password'],
    onSubmit: (values) => ok({ saved: values.email }),
  })
  return { form }
}
