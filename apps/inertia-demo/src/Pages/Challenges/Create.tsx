import { useForm } from '@inertiajs/react'
import { useInertiaFormTools } from '@toolmark/inertia/react'
import * as z from 'zod'

/** The same rules as Laravel's `store` validation, so most mistakes are caught before a request. */
const fields = z.object({
  title: z.string().min(1).max(100).describe('Title'),
  goal: z.string().max(200).describe('What finishing it means').optional(),
})

/**
 * The New challenge form: Inertia's `useForm` holds the values, and the binding makes it the agent's
 * `challenge.fill` / `challenge.submit` tools. The submit asks for confirmation with the diff; Laravel's
 * validation errors come back to the agent as `invalid` issues at the field's path.
 */
export default function Create() {
  const form = useForm({ title: '', goal: '' })
  useInertiaFormTools(form, {
    name: 'challenge',
    title: 'New challenge',
    description: 'Create a challenge from the New challenge form',
    fields,
    action: { method: 'post', url: '/challenges' },
  })
  return (
    <section>
      <h1>New challenge</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          form.post('/challenges')
        }}
      >
        <label>
          Title <input value={form.data.title} onChange={(e) => form.setData('title', e.target.value)} />
        </label>
        {form.errors.title && <p role="alert">{form.errors.title}</p>}
        <label>
          Goal <input value={form.data.goal} onChange={(e) => form.setData('goal', e.target.value)} />
        </label>
        {form.errors.goal && <p role="alert">{form.errors.goal}</p>}
        <button type="submit" disabled={form.processing}>
          Create
        </button>
      </form>
    </section>
  )
}
