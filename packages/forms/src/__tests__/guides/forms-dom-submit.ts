import { ok } from '@toolmark/core'
import { agentSubmit } from '@toolmark/forms/dom'

const form = document.querySelector<HTMLFormElement>('form[toolname=signup]')!
form.addEventListener('submit', (event) => {
  event.preventDefault()
  const saving = save(new FormData(form)).then((errors) =>
    errors.length > 0 ? { status: 'invalid' as const, issues: errors } : ok(),
  )
  // Only for an agent's approved submit (in React: agentSubmit(event.nativeEvent)); call it during the event.
  agentSubmit(event)?.respondWith(saving)
})

declare function save(data: FormData): Promise<{ path: string; message: string }[]>
