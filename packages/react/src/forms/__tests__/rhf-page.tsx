// Bundled for Chromium: a react-hook-form form made agent-ready with useFormTools.
import { createToolmark, ok, type ToolResult } from '@toolmark/core'
import { createRoot } from 'react-dom/client'
import { useForm } from 'react-hook-form'
import { ToolmarkProvider } from '../../index.ts'
import { useFormTools } from '../index.ts'

interface Values {
  title: string
  email: string
  password: string
}

const submitted: Values[] = []
const tm = createToolmark({ confirm: () => ({ approved: true }) })

function SignupForm() {
  const form = useForm<Values>({ defaultValues: { title: '', email: '', password: '' }, mode: 'onChange' })
  useFormTools(form, {
    name: 'signup',
    description: 'create an account',
    fields: {
      type: 'object',
      properties: { title: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    },
    sensitivePaths: ['password'],
    onSubmit: (values) => {
      submitted.push(values)
      return ok({ saved: values.title })
    },
  })
  const { errors } = form.formState
  return (
    <form onSubmit={form.handleSubmit((v) => submitted.push(v))}>
      <input
        {...form.register('title', {
          required: 'Title is required',
          minLength: { value: 3, message: 'At least 3 characters' },
        })}
      />
      <input
        {...form.register('email', {
          pattern: { value: /@example\.org$/, message: 'Use an example.org address' },
        })}
      />
      <input type="password" {...form.register('password')} />
      <output id="errors">{Object.keys(errors).join(',')}</output>
      <output id="dirty">{String(form.formState.isDirty)}</output>
    </form>
  )
}

const call = (name: string, input: unknown, caller: 'test' | 'inapp' = 'test'): Promise<ToolResult> =>
  tm.call(name, input, { caller })
createRoot(document.getElementById('root')!).render(
  <ToolmarkProvider toolmark={tm}>
    <SignupForm />
  </ToolmarkProvider>,
)
Object.assign(window, { tm, call, submitted, ready: true })
