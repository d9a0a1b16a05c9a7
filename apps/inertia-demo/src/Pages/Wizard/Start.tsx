import { router } from '@inertiajs/react'
import { ok } from '@toolmark/core'
import { useTool } from '@toolmark/react'

export default function Start() {
  useTool({
    name: 'wizard.finish',
    description: 'Finish the setup wizard',
    run: () =>
      new Promise<ReturnType<typeof ok>>((resolve) =>
        router.post('/wizard', {}, { onSuccess: () => resolve(ok()) }),
      ),
  })
  return (
    <section>
      <h1>Wizard: start</h1>
      <button type="button" onClick={() => router.post('/wizard')}>
        Finish
      </button>
    </section>
  )
}
