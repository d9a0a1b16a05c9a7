import { createToolmark } from '@toolmark/core'
import { registerDomForm } from '@toolmark/forms/dom'

const tm = createToolmark()
// <form toolname="signup" tooldescription="Create an account"> … </form>
const form = document.querySelector<HTMLFormElement>('form[toolname=signup]')!
const handle = registerDomForm(tm, form)
// signup.fill and signup.submit, re-registered when the form's fields change
console.info(handle.current.skipped) // e.g. [{ name: '_token', reason: 'csrf' }, { name: 'avatar', reason: 'file' }]
