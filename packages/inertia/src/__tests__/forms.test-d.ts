import { useForm as useReactForm } from '@inertiajs/react'
import { useForm as useVueForm } from '@inertiajs/vue3'
import { describe, expectTypeOf, it } from 'vitest'
import { type InertiaFormToolsOptions, useInertiaFormTools as useReactTools } from '../react/index.tsx'
import { useInertiaFormTools as useVueTools } from '../vue/index.ts'

const fields = { type: 'object', properties: { title: { type: 'string' } } }

describe('useInertiaFormTools types', () => {
  it('infers the values from the form (React and Vue)', () => {
    const react = useReactForm({ title: '', points: 1 })
    useReactTools(react, {
      name: 'c',
      description: 'Create',
      fields,
      action: (values) => {
        expectTypeOf(values).toEqualTypeOf<{ title: string; points: number }>()
        return { method: 'post', url: '/c' }
      },
      onSuccess: (_page, values) => {
        expectTypeOf(values.points).toEqualTypeOf<number>()
        return undefined
      },
    })
    const vue = useVueForm({ title: '' })
    useVueTools(vue, { name: 'c', description: 'Create', fields, action: { method: 'put', url: '/c/1' } })
  })

  it('requires an action and keeps the visit callbacks for the binding', () => {
    expectTypeOf<InertiaFormToolsOptions<{ a: string }>>().toHaveProperty('action')
    // @ts-expect-error an action is required
    const missing: InertiaFormToolsOptions<{ a: string }> = { name: 'c', description: 'd', fields }
    // @ts-expect-error onFinish belongs to the binding
    const own: InertiaFormToolsOptions<{ a: string }>['visit'] = { onFinish: () => {} }
    void missing
    void own
  })
})
