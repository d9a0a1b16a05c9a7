import type { FieldChange, Scope, ToolContext, ToolDefinition, Toolmark } from '@toolmark/core'
import { describe, expectTypeOf, it } from 'vitest'
import type { DomFormHandle, FormScan } from '../dom-entry.ts'
import { registerDomForm, scanForm } from '../dom-entry.ts'
import {
  diffValues,
  type FormHandle,
  type FormSource,
  formTools,
  registerForm,
  wizardTools,
} from '../index.ts'

interface Signup extends Record<string, unknown> {
  name: string
  age: number
}
declare const tm: Toolmark
declare const source: FormSource<Signup>

describe('forms types', () => {
  it('formTools infers the fill input as a partial of the values and returns a FieldChange[]', () => {
    const tools = formTools({ name: 'signup', description: 'd', fields: {}, source })
    expectTypeOf(tools.fill).toMatchTypeOf<ToolDefinition>()
    expectTypeOf(tools.fill.run).parameter(0).toEqualTypeOf<Partial<Signup>>()
    expectTypeOf(tools.baseline()).toEqualTypeOf<Signup>()
    expectTypeOf(diffValues({}, {})).toEqualTypeOf<FieldChange[]>()
  })

  it('the source submit receives the typed values and the tool context', () => {
    expectTypeOf<FormSource<Signup>['submit']>().parameters.toEqualTypeOf<[Signup, ToolContext]>()
    expectTypeOf(
      registerForm(tm, { name: 'a', description: 'd', fields: {}, source }),
    ).toEqualTypeOf<FormHandle>()
    expectTypeOf(registerForm).parameter(0).toEqualTypeOf<Toolmark | Scope>()
  })

  it('summary is typed by the values', () => {
    formTools({ name: 's', description: 'd', fields: {}, source, summary: (v) => `Create ${v.name}` })
    // @ts-expect-error: `nope` is not a field
    formTools({ name: 's', description: 'd', fields: {}, source, summary: (v) => v.nope })
  })

  it('wizards and DOM forms', () => {
    expectTypeOf(wizardTools).returns.toEqualTypeOf<ToolDefinition[]>()
    expectTypeOf(scanForm).returns.toEqualTypeOf<FormScan>()
    expectTypeOf(registerDomForm).returns.toEqualTypeOf<DomFormHandle>()
  })
})
