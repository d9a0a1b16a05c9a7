import type { ConfirmationCardData } from '@toolmark/core'
import { defineComponent, h, type PropType } from 'vue'
import { useConfirmationCard } from './useConfirmationCard.ts'

/** What `<ConfirmationCard>` accepts: a pending item or an inline request, with its answers. */
export type AnswerableConfirmation = ConfirmationCardData & { approve(): unknown; reject(): unknown }

const show = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value))

/**
 * A small unstyled reference card: heading, summary, target, field changes, a countdown and
 * Approve/Reject (Delete plus "This action cannot be undone." for destructive tools). Copy it or use it.
 */
// Pure: bundlers drop the card when only other exports are imported.
export const ConfirmationCard = /* @__PURE__ */ defineComponent({
  name: 'ConfirmationCard',
  props: {
    /** A pending item (`usePendingConfirmations().items`) or an inline request (`useConfirmQueue().items`). */
    confirmation: { type: Object as PropType<AnswerableConfirmation>, required: true },
  },
  setup(props) {
    const view = useConfirmationCard(() => props.confirmation)
    return () => {
      const v = view.value
      const c = props.confirmation
      return h(
        'section',
        { 'data-testid': 'confirmation-card', 'data-confirm-id': c.confirmId, 'aria-label': v.heading },
        [
          h('h3', v.heading),
          h('p', { 'data-testid': 'confirmation-summary' }, v.summary),
          v.target !== undefined ? h('p', { 'data-testid': 'confirmation-target' }, v.target) : null,
          v.changes.length > 0
            ? h(
                'ul',
                v.changes.map((change) =>
                  h(
                    'li',
                    { key: change.path },
                    `${change.path}: ${show(change.before)} → ${show(change.after)}`,
                  ),
                ),
              )
            : null,
          v.warning ? h('p', { 'data-testid': 'confirmation-warning' }, v.warning) : null,
          h(
            'p',
            { 'data-testid': 'confirmation-countdown' },
            v.expired ? 'Expired' : `Expires in ${v.countdown}`,
          ),
          h('button', { type: 'button', onClick: () => c.approve() }, v.approveLabel),
          h('button', { type: 'button', onClick: () => c.reject() }, v.rejectLabel),
        ],
      )
    }
  },
})
