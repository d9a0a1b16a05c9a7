import { registerDomForm } from '@toolmark/forms/dom'
import { useConfirmQueue, useToolmark } from '@toolmark/react'
import { createTourRunner, domOverlay, type Tour, type TourRunner } from '@toolmark/tour'
import { type ReactNode, useEffect, useState } from 'react'
import type { Page } from '../app/router.ts'
import { ConfirmCard } from '../chat/ConfirmCard.tsx'
import { inlineConfirms } from './confirm.ts'
import { PlanWizard } from './PlanWizard.tsx'

/** "Show me how to create a challenge": navigate, fill the New challenge form, submit it (confirmed). */
export const CREATE_TOUR: Tour = {
  id: 'create-challenge',
  title: 'Create a challenge',
  description: 'show me how to create a challenge',
  steps: [
    { tool: 'app.navigate', input: { page: 'challenges' }, text: 'Challenges live on the Challenges page.' },
    {
      tool: 'challengeForm.fill',
      input: { name: 'Robotics', description: 'Build a line-following robot' },
      param: 'name',
      auto: true,
      text: 'Give the challenge a name and a description.',
    },
    { tool: 'challengeForm.submit', text: 'Add it: you confirm the changes first.' },
  ],
}

/**
 * The demo's guides: the New challenge form as `challengeForm.fill` / `.submit` (DOM-scanned, so
 * the agent's fill updates the React state and its submit shows a diff card), the tour runner with
 * its `tour.start` tool (on every page: a tour starts anywhere and navigates) and a "Show me how"
 * button, the "Plan a challenge" wizard, and the inline confirmation cards tours wait for. The button
 * and the wizard belong to the challenges page and show only there.
 */
export function Guides({ page }: { page: Page }): ReactNode {
  const tm = useToolmark()
  const [runner, setRunner] = useState<TourRunner | null>(null)
  const inline = useConfirmQueue(inlineConfirms)

  useEffect(() => {
    // The tour's dialog never covers the chat's input, nor the card a tour step waits for (it moves
    // to another corner of the window).
    const overlay = domOverlay({ avoid: '.chat-form, [data-testid="guides"] [data-testid="confirm-card"]' })
    const tours = createTourRunner(tm, { tours: [CREATE_TOUR], overlay })
    setRunner(tours)
    return () => tours.dispose()
  }, [tm])

  useEffect(() => {
    const form = page === 'challenges' ? document.querySelector<HTMLFormElement>('form.create') : null
    if (!form) return
    const handle = registerDomForm(tm, form, {
      name: 'challengeForm',
      description: 'create a challenge by filling in the New challenge form (name required)',
      summary: (values) => `Create challenge "${String(values.name)}"`,
      // The app requires a name: an empty form is answered invalid, before any card.
      validate: (values) =>
        String(values.name ?? '').trim() === '' ? [{ path: 'name', message: 'Enter a name' }] : [],
    })
    return () => handle.dispose()
  }, [tm, page])

  const tourCards = inline.items.filter((item) => item.caller === 'tour')
  // The guides are about the challenges page: elsewhere only a running tour's card shows.
  if (page !== 'challenges' && tourCards.length === 0) return null
  return (
    <aside className="guides" aria-label="Guides" data-testid="guides">
      {page === 'challenges' && (
        <>
          <button type="button" data-testid="tour-create" onClick={() => void runner?.start(CREATE_TOUR.id)}>
            Show me how to create a challenge
          </button>
          <PlanWizard />
        </>
      )}
      {/* At the top of the pane; the tour's dialog is told to avoid it (and the chat input). */}
      {tourCards.map((item) => (
        <ConfirmCard key={item.confirmId} confirmation={item} scrollIntoView="start" />
      ))}
    </aside>
  )
}
