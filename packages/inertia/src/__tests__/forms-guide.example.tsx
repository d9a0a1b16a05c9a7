// pages/Challenges/Create.tsx
import { useForm } from '@inertiajs/react'
import { useInertiaFormTools } from '@toolmark/inertia/react'

export default function Create() {
  const form = useForm({ title: '', points: 10 })
  useInertiaFormTools(form, {
    name: 'challenge',
    description: 'create a challenge',
    fields: {
      type: 'object',
      properties: { title: { type: 'string', minLength: 3 }, points: { type: 'integer', minimum: 0 } },
      required: ['title'],
    },
    action: { method: 'post', url: '/challenges' },
  })
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault()
        form.post('/challenges')
      }}
    >
      <input value={form.data.title} onChange={(e) => form.setData('title', e.target.value)} />
      {form.errors.title && <p>{form.errors.title}</p>}
    </form>
  )
}
