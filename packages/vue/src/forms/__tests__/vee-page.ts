// Bundled for Chromium: a VeeValidate form (useForm + useField, v-model inputs) made agent-ready.
import { createToolmark, ok, type ToolResult } from '@toolmark/core'
import { useField, useForm } from 'vee-validate'
import { createApp, h, vModelText, withDirectives } from 'vue'
import { ToolmarkPlugin } from '../../index.ts'
import { useFormTools } from '../index.ts'

const submitted: unknown[] = []
const tm = createToolmark({ confirm: () => ({ approved: true }) })

const SignupForm = {
  setup() {
    const form = useForm({
      initialValues: { title: '', email: '', password: '' },
      validationSchema: {
        title: (v: string) => (v && v.length >= 3) || 'At least 3 characters',
        email: (v: string) => !v || v.endsWith('@example.org') || 'Use an example.org address',
      },
    })
    const title = useField<string>('title')
    const email = useField<string>('email')
    const password = useField<string>('password')
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
    return () =>
      h('form', [
        withDirectives(
          h('input', { name: 'title', 'onUpdate:modelValue': (v: string) => (title.value.value = v) }),
          [[vModelText, title.value.value]],
        ),
        withDirectives(
          h('input', { name: 'email', 'onUpdate:modelValue': (v: string) => (email.value.value = v) }),
          [[vModelText, email.value.value]],
        ),
        withDirectives(
          h('input', {
            name: 'password',
            type: 'password',
            'onUpdate:modelValue': (v: string) => (password.value.value = v),
          }),
          [[vModelText, password.value.value]],
        ),
        h('output', { id: 'errors' }, Object.keys(form.errors.value).join(',')),
      ])
  },
}

const call = (name: string, input: unknown, caller: 'test' | 'inapp' = 'test'): Promise<ToolResult> =>
  tm.call(name, input, { caller })
createApp(SignupForm).use(ToolmarkPlugin, { toolmark: tm }).mount('#root')
Object.assign(window, { tm, call, submitted, ready: true })
