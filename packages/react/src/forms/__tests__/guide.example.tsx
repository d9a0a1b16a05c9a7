import { ok } from '@toolmark/core'
import { useFormTools } from '@toolmark/react/forms'
import { useForm } from 'react-hook-form'

export function SignupForm() {
  const form = useForm({ defaultValues: { email: '', password: '' } })
  useFormTools(form, {
    name: 'signup',
    description: 'create an account',
    fields: { type: 'object', properties: { email: { type: 'string' }, password: { type: 'string' } } },
    sensitivePaths: ['password'],
    onSubmit: async (values) =>
      ok(await fetch('/signup', { method: 'POST', body: JSON.stringify(values) }).then((r) => r.json())),
  })
  return (
    <form onSubmit={form.handleSubmit(() => {})}>
      <input {...form.register('email', { required: 'Email is required' })} />
      <input
        type="password"
        {...form.register('password', { minLength: { value: 8, message: 'At least 8 characters' } })}
      />
    </form>
  )
}
