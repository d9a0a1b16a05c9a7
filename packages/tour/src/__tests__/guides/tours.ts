import { createConfirmQueue, createToolmark } from '@toolmark/core'
import { createTourRunner, domOverlay } from '@toolmark/tour'

const queue = createConfirmQueue() // tours always confirm inline: render queue.getPending()
const tm = createToolmark({ confirm: queue.handler })

export const tours = createTourRunner(tm, {
  overlay: domOverlay({ labels: { run: 'Show me', exit: 'Stop' } }),
  tours: [
    {
      id: 'create-challenge',
      title: 'Create a challenge',
      description: 'show me how to create a challenge',
      steps: [
        { tool: 'nav.challenges', text: 'Challenges live here.' },
        {
          tool: 'challenge.fill',
          input: { title: 'Robots' },
          param: 'title',
          auto: true,
          text: 'Give it a title.',
        },
        { tool: 'challenge.submit', text: 'Create it: you confirm first.' },
      ],
    },
  ],
  onEnd: (outcome) => console.info(outcome.status), // completed | exited | tool_gone
})
// An agent calls tour.start { tour: 'create-challenge' }, or the app: await tours.start('create-challenge')
